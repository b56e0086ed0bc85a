package capsbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// The scenarios run in a child process (TestPeakChild, told which by
// $FR_PEAK_SCENARIO, where its input file is by $FR_PEAK_INPUT and its
// server by $FR_PEAK_URL), so that the child's peak resident memory is
// the scenario's. The inputs are made, and the servers run, in the parent.
const (
	envScenario = "FR_PEAK_SCENARIO"
	envInput    = "FR_PEAK_INPUT"
	envURL      = "FR_PEAK_URL"
)

// scenario is one hostile input and what reads it.
type scenario struct {
	name   string
	capMB  float64 // the cap the scenario is measured against
	input  func(dir string) string
	server func() http.Handler
	run    func(t *testing.T, input, url string)
}

var scenarios = []scenario{
	{name: "baseline", run: func(*testing.T, string, string) {}},
	{name: "pretty-200MB-objects", capMB: 64, input: prettyFile(200<<20, false), run: scanFile},
	{name: "pretty-200MB-array", capMB: 64, input: prettyFile(200<<20, true), run: scanFile},
	{name: "pretty-one-60MB-record", capMB: 64, input: prettyFile(60<<20, false, 60<<20), run: scanFile},
	{name: "llm-4-answers-at-8MiB", capMB: 8, server: llmServer(8 << 20), run: askLLM},
	{name: "llm-4-answers-of-60MiB", capMB: 8, server: llmServer(60 << 20), run: askLLM},
	{name: "pages-8-text-pages-5MB", capMB: 5, server: pageServer, run: fetchPages},
}

// prettyFile writes size bytes of pretty-printed records (each of about
// record bytes, 20 KB by default), as objects one after another or as
// one array.
func prettyFile(size int, array bool, record ...int) func(dir string) string {
	return func(dir string) string {
		recSize := 20 << 10
		if len(record) > 0 {
			recSize = record[0]
		}
		path := filepath.Join(dir, "pretty.json")
		f, err := os.Create(path)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if array {
			f.WriteString("[\n")
		}
		text := strings.Repeat("Lanny Flaherty was an American actor. ", recSize/40/2)
		for n, i := 0, 0; n < size; i++ {
			rec := map[string]any{"input": fmt.Sprint("Q", i), "output": text,
				"atoms":    []map[string]any{{"id": "a0", "text": "Lanny Flaherty was an actor.", "contexts": []string{"c0"}}},
				"contexts": []map[string]any{{"id": "c0", "text": text}}}
			b, _ := json.MarshalIndent(rec, "", "  ")
			if array && n > 0 {
				f.WriteString(",\n")
			}
			f.Write(b)
			f.WriteString("\n")
			n += len(b) + 2
		}
		if array {
			f.WriteString("]\n")
		}
		return path
	}
}

func scanFile(t *testing.T, path, _ string) {
	n := 0
	if err := instance.Scan(path, nil, func(*instance.Instance) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no records")
	}
}

// llmServer answers every request with a completion of size bytes, with
// its tokens' log probabilities and bytes, the costliest to decode.
func llmServer(size int) func() http.Handler {
	return func() http.Handler {
		type tok struct {
			Token   string  `json:"token"`
			Logprob float64 `json:"logprob"`
			Bytes   []int   `json:"bytes"`
		}
		one := tok{"abcdefgh", -0.25, []int{97, 98, 99, 100, 101, 102, 103, 104}}
		each, _ := json.Marshal(one)
		answer := func(n int) []byte {
			toks := make([]tok, n)
			for i := range toks {
				toks[i] = one
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": strings.Repeat(one.Token, n)}, "finish_reason": "stop",
				"logprobs": map[string]any{"content": toks}}}})
			return b
		}
		per := len(each) + 1 + len(one.Token) // the token, its comma, its text in the content
		n := (size - 200) / per
		body := answer(n)
		for len(body) > size {
			n -= (len(body)-size)/per + 1
			body = answer(n)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		})
	}
}

// askLLM asks for four answers at once; an answer over the client's cap
// is an error, which is what the scenario measures then.
func askLLM(t *testing.T, _, url string) {
	c, err := llm.New(llm.Config{BaseURL: url + "/v1", Model: "m", Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reqs := make([]llm.Request, 4)
	for i := range reqs {
		reqs[i] = llm.Request{Messages: []llm.Message{{Role: "user", Content: fmt.Sprint(i)}}, Logprobs: true}
	}
	rs, err := c.CompleteAll(context.Background(), reqs)
	if err != nil {
		t.Logf("refused: %v", err)
		return
	}
	if len(rs[0].Tokens) == 0 {
		t.Fatal("no tokens")
	}
}

// pageServer serves a text-heavy 5 MB page at every path.
func pageServer() http.Handler {
	var b strings.Builder
	b.WriteString("<html><body><article>")
	for b.Len() < 5<<20-200 {
		b.WriteString("<p>Lanny Flaherty was born in 1942 in Pontotoc, Mississippi, and served in the army.</p>\n")
	}
	b.WriteString("</article></body></html>")
	page := []byte(b.String())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(page)
	})
}

// fetchPages fetches eight different pages at once, as two records'
// searches would.
func fetchPages(t *testing.T, _, url string) {
	f := retrieve.NewPageFetcher()
	f.AllowPrivate = true
	f.Timeout = 10 * time.Minute
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Text(context.Background(), fmt.Sprintf("%s/page%d", url, i), "born"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestPeakChild runs one scenario, in the child process of BenchmarkPeak.
func TestPeakChild(t *testing.T) {
	name := os.Getenv(envScenario)
	if name == "" {
		t.Skip("run by BenchmarkPeak")
	}
	for _, s := range scenarios {
		if s.name == name {
			s.run(t, os.Getenv(envInput), os.Getenv(envURL))
			// The high-water mark of this process's memory since its exec
			// (getrusage's maxrss would count the parent's, which it
			// shares until the exec).
			status, err := os.ReadFile("/proc/self/status")
			if err != nil {
				t.Skip("no /proc/self/status")
			}
			for _, l := range strings.Split(string(status), "\n") {
				if strings.HasPrefix(l, "VmHWM:") {
					fmt.Printf("PEAK %s\n", strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")))
				}
			}
			return
		}
	}
	t.Fatalf("no scenario %q", name)
}

// BenchmarkPeak reports the peak resident memory of each scenario, in MB
// and as a multiple of the cap it is bounded by (the baseline, the test
// binary's own, subtracted). Run:
//
//	go test ./internal/testgen/capsbench -run '^$' -bench Peak -benchtime 1x
func BenchmarkPeak(b *testing.B) {
	dir := b.TempDir()
	var base float64
	for _, s := range scenarios {
		b.Run(s.name, func(b *testing.B) {
			input, url := "", ""
			if s.input != nil {
				input = s.input(dir)
				defer os.Remove(input)
			}
			if s.server != nil {
				srv := httptest.NewServer(s.server())
				defer srv.Close()
				url = srv.URL
			}
			var peak float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestPeakChild$", "-test.v")
				cmd.Env = append(os.Environ(), envScenario+"="+s.name, envInput+"="+input, envURL+"="+url)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				var kb float64
				for _, l := range strings.Split(string(out), "\n") {
					if _, err := fmt.Sscanf(l, "PEAK %f kB", &kb); err == nil {
						break
					}
				}
				if kb == 0 {
					b.Skipf("no peak measured:\n%s", out)
				}
				peak = kb / 1024
			}
			b.ReportMetric(peak, "peak-MB")
			if s.name == "baseline" {
				base = peak
				return
			}
			b.ReportMetric((peak-base)/s.capMB, "x-cap")
		})
	}
}
