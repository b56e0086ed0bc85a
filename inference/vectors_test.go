package inference_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/uai"
)

// vectors is the merlin-vectors reference data
// (testdata/refdata/README.md; FACTREASONER_REFDATA overrides it).
var vectors = filepath.Join(refdata.Root(), "merlin-vectors")

func needVectors(t testing.TB) {
	t.Helper()
	refdata.Path(t, "merlin-vectors")
}

// exactTxt reads an outputs/*.exact.txt file: "logZ X (...)" then
// "MAR n c p… c p…".
func exactTxt(t testing.TB, path string) (float64, [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var logZ float64
	var marg [][]float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		num := func(i int) float64 {
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return x
		}
		switch fields[0] {
		case "logZ":
			logZ = num(1)
		case "MAR":
			n := int(num(1))
			i := 2
			for range n {
				c := int(num(i))
				i++
				p := make([]float64, c)
				for x := range p {
					p[x] = num(i)
					i++
				}
				marg = append(marg, p)
			}
		}
	}
	if marg == nil {
		t.Fatalf("%s: no MAR line", path)
	}
	return logZ, marg
}

// marJSON reads merlin's JSON MAR output (fr3/*.MAR.json).
func marJSON(t testing.TB, path string) (float64, [][]float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Value     float64 `json:"value"`
		Marginals []struct {
			Variable      int       `json:"variable"`
			Probabilities []float64 `json:"probabilities"`
		} `json:"marginals"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	marg := make([][]float64, len(out.Marginals))
	for _, m := range out.Marginals {
		marg[m.Variable] = m.Probabilities
	}
	return out.Value, marg
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for v := range a {
		for x := range a[v] {
			d = max(d, math.Abs(a[v][x]-b[v][x]))
		}
	}
	return d
}

func loadModel(t testing.TB, path string) *inference.Model {
	t.Helper()
	n, err := uai.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return n.Model
}

// TestMerlinVectorsSmall: every small model, with and without its evidence,
// against the enumerated marginals and ln Z, by every native algorithm.
func TestMerlinVectorsSmall(t *testing.T) {
	needVectors(t)
	cases := []struct{ model, evid, exact string }{
		{"fr_tiny3", "", "fr_tiny3"},
		{"fr_tiny3", "fr_tiny3_c0true", "fr_tiny3_ev"},
		{"fr_loop4", "", "fr_loop4"},
		{"order3", "", "order3"},
		{"order3", "order3_v1eq2", "order3_ev"},
	}
	for _, c := range cases {
		m := loadModel(t, filepath.Join(vectors, "models", c.model+".uai"))
		if c.evid != "" {
			ev, err := uai.ReadEvidenceFile(filepath.Join(vectors, "models", c.evid+".evid"))
			if err != nil {
				t.Fatal(err)
			}
			if m, err = m.WithEvidence(ev); err != nil {
				t.Fatal(err)
			}
		}
		wantZ, want := exactTxt(t, filepath.Join(vectors, "outputs", c.exact+".exact.txt"))
		for alg, s := range map[string]inference.Solver{"auto": inference.Auto{}, "exact": inference.JunctionTree{}} {
			t.Run(c.exact+"/"+alg, func(t *testing.T) {
				res, err := s.Solve(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(res.Marginals, want); d > 1e-6 {
					t.Errorf("max |ΔP| = %g against %s.exact.txt, want ≤ 1e-6\ngot  %v\nwant %v", d, c.exact, res.Marginals, want)
				}
				if math.Abs(res.LogZ-wantZ) > 1e-6 {
					t.Errorf("ln Z = %.10f, want %.10f", res.LogZ, wantZ)
				}
				if res.Report.Method != "exact" {
					t.Errorf("method %q, want exact", res.Report.Method)
				}
			})
		}
	}
}

// fr3Sizes are the synthetic worst-case FR3 models, smallest first.
var fr3Sizes = []string{"5x10", "10x20", "15x30", "20x40", "30x60", "50x100"}

func fr3Path(size string) string { return filepath.Join(vectors, "fr3", "fr3_"+size+".uai") }

// TestFR3Exact: the exact path matches merlin's exact (cte) marginals,
// printed with 6 decimals, on every model that has them.
func TestFR3Exact(t *testing.T) {
	needVectors(t)
	for _, size := range fr3Sizes[:3] {
		t.Run(size, func(t *testing.T) {
			m := loadModel(t, fr3Path(size))
			wantZ, want := marJSON(t, filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json"))
			res, err := inference.JunctionTree{}.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			// The reference is printed with 6 decimals; its rounding (at
			// most 5e-7) is inside the bound.
			if d := maxDiff(res.Marginals, want); d > 1e-6 {
				t.Errorf("max |ΔP| = %g, want ≤ 1e-6", d)
			}
			if math.Abs(res.LogZ-wantZ) > 1e-6*max(1, math.Abs(wantZ)) {
				t.Errorf("ln Z = %.6f, want %.6f", res.LogZ, wantZ)
			}
			t.Logf("%s: width %d, ln Z %.6f", size, res.Report.Width, res.LogZ)
		})
	}
}

// TestFR3BP: loopy BP alone converges on the dense FR3 models to a fixed
// point 0.0184, 0.0534 and 0.00214 from exact (the error of the Bethe
// approximation: every damping and schedule reaches the same one).
// Conditioning on a few variables within the default budget brings 15x30
// within issue 3's 1e-3 of exact; the bounds on the smaller models are
// the measured errors rounded up, so that a regression shows.
func TestFR3BP(t *testing.T) {
	needVectors(t)
	bound := map[string]float64{"5x10": 3e-5, "10x20": 0.004, "15x30": 1e-3}
	plain := map[string]float64{"5x10": 0.019, "10x20": 0.054, "15x30": 0.0022}
	for _, size := range fr3Sizes[:3] {
		t.Run(size, func(t *testing.T) {
			m := loadModel(t, fr3Path(size))
			_, want := marJSON(t, filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json"))
			res, err := inference.ConditionedBP{}.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Report
			d := maxDiff(res.Marginals, want)
			t.Logf("%s: %d variables clamped, %d branches, %d runs, %d sweeps, residual %.2g, max |ΔP| %.4g against exact",
				size, r.Clamped, r.Branches, r.Runs, r.Iterations, r.Residual, d)
			if !r.Converged || r.Method != inference.MethodConditionedBP || r.Clamped == 0 {
				t.Errorf("report %+v, want converged bp with clamped variables", r)
			}
			if d > bound[size] {
				t.Errorf("max |ΔP| = %g against exact, want ≤ %g", d, bound[size])
			}

			res, err = inference.LoopyBP{}.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			d = maxDiff(res.Marginals, want)
			t.Logf("%s without conditioning: %d sweeps, max |ΔP| %.4g", size, res.Report.Iterations, d)
			if res.Report.Clamped != 0 || res.Report.Runs != 1 || d > plain[size] {
				t.Errorf("plain BP: report %+v, max |ΔP| = %g, want one run within %g", res.Report, d, plain[size])
			}
		})
	}
}

// fr3MAR reads the 20x40 reference, in merlin's UAI output format.
func fr3MAR(t testing.TB, size string) (float64, [][]float64) {
	t.Helper()
	// refdata.Path skips, or under CI fails, when the file is missing.
	f, err := os.Open(refdata.Path(t, "merlin-vectors", "fr3", "fr3_"+size+".exact.MAR"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mar, err := uai.ReadMAR(f, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return mar.LogZ, mar.Marginals
}

// TestFR3Cutset: with a memory bound that keeps the junction tree of
// 15x30 from fitting (8 MiB against its 358), exact inference conditions
// on a cutset and still matches merlin's exact marginals.
func TestFR3Cutset(t *testing.T) {
	needVectors(t)
	m := loadModel(t, fr3Path("15x30"))
	wantZ, want := marJSON(t, filepath.Join(vectors, "fr3", "fr3_15x30.exact.MAR.json"))
	res, err := inference.JunctionTree{MaxBytes: 8 << 20}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(res.Marginals, want); d > 1e-6 {
		t.Errorf("max |ΔP| = %g, want ≤ 1e-6", d)
	}
	if math.Abs(res.LogZ-wantZ) > 1e-6*math.Abs(wantZ) {
		t.Errorf("ln Z = %.6f, want %.6f", res.LogZ, wantZ)
	}
	if p := res.Report.Parts; len(p) != 1 || p[0].Method != inference.MethodCutset || p[0].Cutset == 0 {
		t.Errorf("report %+v, want cutset conditioning", res.Report)
	}
	t.Log(res.Report.Summary())
}

// TestFR3_20x40: the default (auto) on the model whose junction tree does
// not fit, against the exact marginals of the reference data (testdata/refdata/README.md):
// issue 17 asks for 1e-3; the partial cutset gets within the reference's
// rounding.
func TestFR3_20x40(t *testing.T) {
	needVectors(t)
	m := loadModel(t, fr3Path("20x40"))
	wantZ, want := fr3MAR(t, "20x40")
	res, err := inference.Auto{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	d := maxDiff(res.Marginals, want)
	t.Logf("%s: max |ΔP| %.3g, ln Z %.6f (exact %.6f)", res.Report.Summary(), d, res.LogZ, wantZ)
	if d > 1e-3 || labelFlips(res.Marginals, want) > 0 {
		t.Errorf("max |ΔP| = %g, %d labels flipped; want ≤ 1e-3 and none", d, labelFlips(res.Marginals, want))
	}
	if p := res.Report.Parts; len(p) != 1 || !p[0].Converged || (p[0].Method != inference.MethodPartialCutset && p[0].Method != inference.MethodCutset) {
		t.Errorf("report %+v, want a (partial) cutset", res.Report)
	}
}

// TestFR3_20x40Exact: exact inference by cutset conditioning on 20x40, to
// 1e-6 of the reference (its printed precision). It takes minutes (about
// 3e11 table-entry operations), so it runs only with
// FACTREASONER_SLOW_TESTS=1; BENCHMARKS.md records its time. CI runs the
// same path (cutset conditioning, exact, against merlin's marginals) on
// 15x30 in TestFR3Cutset.
func TestFR3_20x40Exact(t *testing.T) {
	needVectors(t)
	if os.Getenv("FACTREASONER_SLOW_TESTS") != "1" {
		t.Skip("minutes long: set FACTREASONER_SLOW_TESTS=1 (CI tests this path on 15x30: TestFR3Cutset)")
	}
	m := loadModel(t, fr3Path("20x40"))
	wantZ, want := fr3MAR(t, "20x40")
	res, err := inference.JunctionTree{Budget: time.Hour}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(res.Marginals, want); d > 1e-6 {
		t.Errorf("max |ΔP| = %g, want ≤ 1e-6", d)
	}
	if math.Abs(res.LogZ-wantZ) > 1e-6*math.Abs(wantZ) {
		t.Errorf("ln Z = %.6f, want %.6f", res.LogZ, wantZ)
	}
	t.Log(res.Report.Summary())
}
