package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReportFlaherty scores the Flaherty instance with IBM's recorded
// relations as FR1, FR2 and FR3 with fr score, reports the three runs with
// fr report, and checks the report against the golden file: the FR2
// confusion matrix (TP 7, TN 17 of which 16 undecided, FP 2, FN 0), the
// ECE computed here from merlin's marginals and the gold labels, and the
// network's relations, which are the golden ones.
func TestReportFlaherty(t *testing.T) {
	ctx := context.Background()
	input, gold := flahertyWithRelations(t)
	dir := t.TempDir()
	var outs []string
	for _, v := range []string{"1", "2", "3"} {
		out := filepath.Join(dir, "fr"+v+".jsonl")
		if _, _, err := run(t, ctx, "score", "--nli", "given", "--version", v, "-o", out, input); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	html := filepath.Join(dir, "report.html")
	plots := filepath.Join(dir, "plots")
	args := append([]string{"report", "--input", input, "--layout", "built-in", "-o", html, "--plots", plots}, outs...)
	stdout, stderr, err := run(t, ctx, args...)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "" || !strings.Contains(stderr, "fr report: wrote "+html) || !strings.Contains(stderr, "built-in") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}

	// The FR2 confusion matrix.
	tables := regexp.MustCompile(`(?s)<table class="confusion"><caption>.*?</span>(.*?)</caption>.*?</table>`).FindAllSubmatch(page, -1)
	cells := regexp.MustCompile(`<td class="\w+">(\d+)</td>`)
	var fr2 []string
	for _, m := range tables {
		if string(m[1]) == "FR2 · given" {
			for _, c := range cells.FindAllSubmatch(m[0], -1) {
				fr2 = append(fr2, string(c[1]))
			}
		}
	}
	// Rows gold S, NS; columns predicted S, NS, undecided.
	if want := []string{"7", "0", "0", "2", "1", "16"}; !slices.Equal(fr2, want) {
		t.Errorf("FR2 confusion matrix %v, want %v", fr2, want)
	}

	// ECE over 10 bins, from merlin's marginals and the gold labels.
	var merlin []struct {
		Variable      string
		Probabilities [2]float64
	}
	json.Unmarshal(gold["merlin_all_marginals"], &merlin)
	var atoms []struct{ ID, Label string }
	json.Unmarshal(readJSON(t, input)["atoms"], &atoms)
	label := make(map[string]string)
	for _, a := range atoms {
		label[a.ID] = a.Label
	}
	var n [10]int
	var sumP, sumY [10]float64
	for _, m := range merlin {
		l, ok := label[m.Variable]
		if !ok {
			continue // a context
		}
		p := m.Probabilities[1]
		b := min(int(p*10), 9)
		n[b]++
		sumP[b] += p
		if l == "S" {
			sumY[b]++
		}
	}
	ece := 0.0
	for b := range n {
		if n[b] > 0 {
			ece += float64(n[b]) / 26 * math.Abs(sumY[b]/float64(n[b])-sumP[b]/float64(n[b]))
		}
	}
	row := regexp.MustCompile(`<tr><td><span class="swatch"[^>]*></span>FR2 · given</td>(.*?)</tr>`).FindSubmatch(page)
	if row == nil || !strings.HasSuffix(string(row[1]), fmt.Sprintf("<td>%.4f</td>", ece)) {
		t.Errorf("FR2 summary row %q, want it to end with ECE %.4f", row, ece)
	}

	// The relations of the FR2 network are the 15 golden ones.
	data := regexp.MustCompile(`(?s)<script type="application/json" id="fr-data">(.*?)</script>`).FindSubmatch(page)
	var d struct {
		Responses []struct {
			A, C [][4]any
			R    []struct {
				Rel [][4]float64
			}
		}
	}
	if data == nil || json.Unmarshal(data[1], &d) != nil || len(d.Responses) != 1 || len(d.Responses[0].R) != 3 {
		t.Fatal("no page data with one response in three runs")
	}
	r := d.Responses[0]
	ids := func(k int) string {
		if k < len(r.A) {
			return r.A[k][0].(string)
		}
		return r.C[k-len(r.A)][0].(string)
	}
	var got, want []string
	for _, rel := range r.R[1].Rel {
		got = append(got, fmt.Sprintf("%s %s %.6f", ids(int(rel[0])), ids(int(rel[1])), rel[3]))
	}
	var golden []struct {
		Source, Target string
		Probability    float64
	}
	json.Unmarshal(gold["relations"], &golden)
	for _, g := range golden {
		want = append(want, fmt.Sprintf("%s %s %.6f", g.Source, g.Target, g.Probability))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("FR2 relations:\n got %v\nwant %v", got, want)
	}

	for _, name := range []string{"p-true", "reliability", "pr-vs-gold"} {
		for _, ext := range []string{".svg", ".png"} {
			if st, err := os.Stat(filepath.Join(plots, name+ext)); err != nil || st.Size() == 0 {
				t.Errorf("plot %s%s: %v", name, ext, err)
			}
		}
	}
}

// TestReportFiles: -o refuses to replace a file without --force and leaves
// it as it was; without -o the page goes to stdout; an old output without
// --input is an error that says what to do.
func TestReportFiles(t *testing.T) {
	ctx := context.Background()
	runs := []string{"../../testdata/report/example.fr2.jsonl", "../../testdata/report/example.fr3.jsonl"}
	input := "../../testdata/report/example-input.jsonl" // what they were scored from
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	os.WriteFile(out, []byte("keep me"), 0o644)
	args := append([]string{"report", "--input", input, "--layout", "built-in", "-o", out}, runs...)
	if _, _, err := run(t, ctx, args...); exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "the file exists; give --force to replace it") {
		t.Errorf("replacing without --force: %v", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "keep me" {
		t.Error("the existing file was changed")
	}
	force := append([]string{"report", "--force", "--input", input, "--layout", "built-in", "-o", out}, runs...)
	if _, _, err := run(t, ctx, force...); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(out)
	stdout, _, err := run(t, ctx, append([]string{"report", "--input", input, "--layout", "built-in"}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, "<!DOCTYPE html>") || stdout != string(written) {
		t.Error("the page on stdout differs from the one in the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	_, _, err = run(t, ctx, "report", runs[0])
	if err == nil || !strings.Contains(err.Error(), runs[0]+":1: atoms: missing") || !strings.Contains(err.Error(), "--input") {
		t.Errorf("an old output without --input: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "give at least one output file"},
		{[]string{"report", "--layout", "circle", runs[0]}, `--layout: unknown layout "circle"`},
		{[]string{"report", "--input", filepath.Join(dir, "none.jsonl"), runs[0]}, "--input: " + filepath.Join(dir, "none.jsonl") + ": no such file"},
	} {
		if _, _, err := run(t, ctx, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestReportRecordedOutput: an output of today's fr score carries its
// relations, so fr report needs no --input and shows the evidence of a
// lexical run, which an old output cannot.
func TestReportRecordedOutput(t *testing.T) {
	ctx := context.Background()
	out, _, err := run(t, ctx, "score", "--nli", "lexical", "--version", "3", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	page, _, err := run(t, ctx, "report", "--layout", "built-in", writeFile(t, "fr3.jsonl", out))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "relations not recorded") || !strings.Contains(page, "Ada Lovelace invented the first electronic computer.") {
		t.Error("the report of a recorded output lacks its relations or atoms")
	}
	old, _, err := run(t, ctx, "report", "--layout", "built-in", "--input", "../../testdata/report/example-input.jsonl", "../../testdata/report/example.fr2-lexical.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(old, "relations not recorded") {
		t.Error("the report of an old lexical output claims relations it cannot have")
	}
}

// TestReportToDevNull: stdout redirected to /dev/null (a character device,
// but no terminal) takes the report, as any redirection does; only a
// terminal is refused.
func TestReportToDevNull(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	stdout := os.Stdout
	os.Stdout = null
	defer func() { os.Stdout = stdout }()
	var errw strings.Builder
	app := newApp()
	app.Writer, app.ErrWriter = os.Stdout, &errw
	if err := app.RunContext(context.Background(), []string{"fr", "report", "--layout", "built-in", "--input", filepath.Join("..", "..", "testdata", "report", "example-input.jsonl"), filepath.Join("..", "..", "testdata", "report", "example.fr2.jsonl")}); err != nil {
		t.Fatalf("fr report > %s: %v\n%s", os.DevNull, err, errw.String())
	}
	if !strings.Contains(errw.String(), "fr report: wrote stdout") {
		t.Errorf("no summary on stderr:\n%s", errw.String())
	}
}
