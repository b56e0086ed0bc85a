package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// runColors tell runs apart in plots and tables (Tableau 10).
var runColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

func runColor(i int) color.Color {
	var c color.RGBA
	fmt.Sscanf(runColors[i%len(runColors)], "#%02x%02x%02x", &c.R, &c.G, &c.B)
	c.A = 255
	return c
}

// Plot is one figure of the summary.
type Plot struct {
	Name  string // file name without extension, e.g. "reliability"
	Title string
	Plot  *plot.Plot
}

const plotSize = 4.5 * vg.Inch

// Plots are the summary's figures: the distribution of P(true), and with
// gold labels the reliability diagram and Pr against gold Pr.
func (rep *Report) Plots() []Plot {
	names := rep.Names()
	var out []Plot
	if p := rep.histogramPlot(names); p != nil {
		out = append(out, Plot{"p-true", "P(true) of the atoms", p})
	}
	if p := rep.reliabilityPlot(names); p != nil {
		out = append(out, Plot{"reliability", "Reliability diagram", p})
	}
	if p := rep.scatterPlot(names); p != nil {
		out = append(out, Plot{"pr-vs-gold", "Pr against gold Pr", p})
	}
	return out
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Min, p.X.Max, p.Y.Min = 0, 1, 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// unitSquare draws the diagonal of [0, 1]² and leaves room above it for
// the legend, one line per run, so that the legend hides no point.
func unitSquare(p *plot.Plot, runs int) {
	d := plotter.NewFunction(func(x float64) float64 { return x })
	d.Color = color.Gray{Y: 150}
	d.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	d.XMin, d.XMax = 0, 1
	p.Add(d)
	p.Y.Max = 1 + 0.06*float64(runs)
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25}, {Value: 0.5, Label: "0.5"}, {Value: 0.75}, {Value: 1, Label: "1"}}
	p.X.Tick.Marker = p.Y.Tick.Marker
}

// histogramPlot: how many atoms get each P(true), per run; nil when no
// run has a P(true) (every one decides without).
func (rep *Report) histogramPlot(names []string) *plot.Plot {
	p := newPlot("P(true) of the atoms", "P(true)", "share of atoms")
	const bins = 20
	top := 0.0
	found := false
	for i, run := range rep.Runs {
		count := make([]float64, bins)
		n := 0
		for _, res := range run.Results {
			for _, a := range res.Atoms {
				pt, ok := res.PTrue[a.ID]
				if !ok {
					continue
				}
				count[min(int(pt*bins), bins-1)]++
				n++
			}
		}
		if n == 0 {
			continue // a run that decides without a P(true)
		}
		found = true
		xys := make(plotter.XYs, 0, 2*bins)
		for b, c := range count {
			share := 0.0
			if n > 0 {
				share = c / float64(n)
			}
			xys = append(xys, plotter.XY{X: float64(b) / bins, Y: share}, plotter.XY{X: float64(b+1) / bins, Y: share})
			top = max(top, share)
		}
		l, _ := plotter.NewLine(xys)
		l.Color = runColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d atoms)", names[i], n), l)
	}
	if !found {
		return nil
	}
	p.Legend.Left = false
	p.Y.Max = top * (1 + 0.1*float64(len(rep.Runs)))
	return p
}

// reliabilityPlot: P(true) binned against the fraction true, per run; nil
// without labeled atoms.
func (rep *Report) reliabilityPlot(names []string) *plot.Plot {
	p := newPlot("Reliability diagram", "mean P(true) of the bin", "fraction of its atoms that are true (gold S)")
	unitSquare(p, len(rep.Runs))
	found := false
	for i, st := range rep.Stats {
		c := st.Calibration
		if c.N == 0 {
			continue
		}
		found = true
		var xys plotter.XYs
		for _, b := range c.Bins {
			if b.N > 0 {
				xys = append(xys, plotter.XY{X: b.MeanP, Y: b.FracTrue})
			}
		}
		l, s, _ := plotter.NewLinePoints(xys)
		l.Color, s.Color = runColor(i), runColor(i)
		s.Shape = glyph(i)
		p.Add(l, s)
		p.Legend.Add(fmt.Sprintf("%s: ECE %.3f (%d atoms)", names[i], c.ECE, c.N), l, s)
	}
	if !found {
		return nil
	}
	return p
}

// scatterPlot: Pr against gold Pr per labeled response, per run; nil
// without labeled responses.
func (rep *Report) scatterPlot(names []string) *plot.Plot {
	p := newPlot("Pr against gold Pr", "gold Pr (share of gold S atoms)", "Pr (predicted factual precision)")
	unitSquare(p, len(rep.Runs))
	found := false
	for i, run := range rep.Runs {
		var xys plotter.XYs
		for _, res := range run.Results {
			if g := res.Scores.Gold; g != nil {
				xys = append(xys, plotter.XY{X: g.FactualityScore, Y: res.Scores.Precision})
			}
		}
		if len(xys) == 0 {
			continue
		}
		found = true
		s, _ := plotter.NewScatter(xys)
		s.Color = runColor(i)
		s.Shape = glyph(i)
		p.Add(s)
		sum := rep.Stats[i].Summary
		p.Legend.Add(fmt.Sprintf("%s: MAE %.3f, r %s, ρ %s", names[i], sum.MAE, fmtCorr(sum.Pearson), fmtCorr(sum.Spearman)), s)
	}
	if !found {
		return nil
	}
	return p
}

func glyph(i int) draw.GlyphDrawer {
	gs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	return gs[i%len(gs)]
}

func fmtCorr(r float64) string {
	if math.IsNaN(r) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", r)
}

// SVG renders the plot as SVG, fonts named but not embedded.
func (p Plot) SVG() ([]byte, error) {
	c := vgsvg.New(plotSize, plotSize)
	p.Plot.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PNG renders the plot as a PNG image at 200 dots per inch.
func (p Plot) PNG() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(plotSize, plotSize), vgimg.UseDPI(200))
	p.Plot.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WritePlots writes each plot as NAME.svg and NAME.png into dir, creating
// it if needed, and returns the paths written. Existing files are replaced
// only when overwrite is set; otherwise an existing one is an error
// (wrapping os.ErrExist) and nothing is written.
func (rep *Report) WritePlots(dir string, overwrite bool) ([]string, error) {
	plots := rep.Plots()
	type file struct {
		path string
		data []byte
	}
	var files []file
	for _, p := range plots {
		svg, err := p.SVG()
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", p.Name, err)
		}
		png, err := p.PNG()
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", p.Name, err)
		}
		files = append(files, file{filepath.Join(dir, p.Name+".svg"), svg}, file{filepath.Join(dir, p.Name+".png"), png})
	}
	if !overwrite {
		for _, f := range files {
			if _, err := os.Stat(f.path); err == nil {
				return nil, fmt.Errorf("%s: %w", f.path, os.ErrExist)
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		if err := writeFileAtomic(f.path, f.data, true); err != nil {
			return paths, err
		}
		paths = append(paths, f.path)
	}
	return paths, nil
}
