package report

import "math"

// Calibration compares P(true) with how often atoms are true: labeled atoms
// binned by P(true) into equal-width bins.
type Calibration struct {
	Bins []Bin
	N    int     // labeled atoms
	ECE  float64 // expected calibration error: Σ_b (n_b / N)·|fraction true_b − mean P_b|; NaN when N = 0
}

// Bin is one bin of a reliability diagram.
type Bin struct {
	Lo, Hi   float64 // P(true) in [Lo, Hi); the last bin includes 1
	N        int     // atoms in the bin
	MeanP    float64 // mean P(true) of its atoms (NaN when empty)
	FracTrue float64 // fraction of its atoms that are true (NaN when empty)
}

// Calibrate bins P(true) p against gold labels y (true = supported) into n
// equal-width bins of [0, 1].
func Calibrate(p []float64, y []bool, n int) Calibration {
	c := Calibration{Bins: make([]Bin, n), N: len(p)}
	sumP := make([]float64, n)
	sumY := make([]int, n)
	for i, pi := range p {
		b := min(int(pi*float64(n)), n-1)
		c.Bins[b].N++
		sumP[b] += pi
		if y[i] {
			sumY[b]++
		}
	}
	for b := range c.Bins {
		bin := &c.Bins[b]
		bin.Lo, bin.Hi = float64(b)/float64(n), float64(b+1)/float64(n)
		bin.MeanP, bin.FracTrue = math.NaN(), math.NaN()
		if bin.N == 0 {
			continue
		}
		bin.MeanP = sumP[b] / float64(bin.N)
		bin.FracTrue = float64(sumY[b]) / float64(bin.N)
		c.ECE += float64(bin.N) / float64(c.N) * math.Abs(bin.FracTrue-bin.MeanP)
	}
	if c.N == 0 {
		c.ECE = math.NaN()
	}
	return c
}
