package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFiles: every prompt loads, with the placeholders its code fills in,
// the content pinned by its SHA-256 (README.md says where each is from);
// VeriScore's two templates are as long as the repository's files, in
// characters, once their placeholders are written back as {name}.
func TestFiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		vars   []string
		sha256 string
		chars  int // 0: not checked
	}{
		{"factreasoner/atomizer", []string{"response"}, "9717d9efffd0ebb55f2a4e55d752386349cfce504387af7bf2df3a96b272ff51", 0},
		{"factreasoner/reviser", []string{"atomic_unit", "response"}, "feac4d336da407457ef40534f842f5ced751a4415a4c67491025193c4ef37c21", 0},
		{"factreasoner/nli-v1", []string{"premise_text", "hypothesis_text"}, "89c71dd2fc8d82dc03d271ddba4d93e6576022fd002a5a1ecd707f92656613e5", 0},
		{"factreasoner/nli-v2", []string{"premise_text", "hypothesis_text"}, "cae6fee37cee26fbd03f9e06d0978212262fa73f6b21f8723204ab843b029028", 0},
		{"factreasoner/summarizer", []string{"atom_text", "context"}, "9e441b7d8990a3c084bdf62c9436ca6ab08990accb168ef75946eb4a7152bda7", 0},
		{"factreasoner/veriscore-verify", []string{"knowledge_text", "atom_text"}, "b249241d07d62d7f8d30ec31cb8dcbe787ed58a09276f35d57eb909dfde91021", 0},
		{"factreasoner/factverify-verify", []string{"atom_text", "search_results"}, "6389c07042b310585e578d7a95ea5954b1d73a07862be2f3d5ac499742dc05a2", 0},
		{"factreasoner/querybuilder", []string{"statement_text"}, "ff538800ed72cc4bc146cf53fdd98e640f50d8c4ab72c186e179e7617dd5ed11", 0},
		{"veriscore/claims", []string{"snippet", "sentence"}, "6fcf09035972a6f52d19ff2b457e81736bfd42dcca2701792783397464ce4f93", 13724},
		{"veriscore/claims-qa", []string{"snippet", "sentence"}, "d06f178961071c2066a3cb52d4067ef5e5816f0655dc80b48ae882e3a8d989b0", 12732},
		{"veriscore/claims-system", nil, "1e94e7e34d915d619cac2560f9e79afd95e0fd59a9204beaccb335e07fa337d3", 0},
	} {
		tmpl, err := Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tmpl.Vars(), tc.vars) {
			t.Errorf("%s: placeholders %v, want %v", tc.name, tmpl.Vars(), tc.vars)
		}
		sum := sha256.Sum256([]byte(tmpl.Text()))
		if got := hex.EncodeToString(sum[:]); got != tc.sha256 {
			t.Errorf("%s: SHA-256 %s, want %s", tc.name, got, tc.sha256)
		}
		if tc.chars > 0 {
			orig := strings.NewReplacer("{{snippet}}", "{snippet}", "{{sentence}}", "{sentence}").Replace(tmpl.Text())
			if n := utf8.RuneCountInString(orig); n != tc.chars {
				t.Errorf("%s: %d characters, the repository's file %d", tc.name, n, tc.chars)
			}
		}
		if !strings.Contains(string(readme), "`"+tc.name+".txt`") {
			t.Errorf("README.md does not list %s.txt", tc.name)
		}
	}
	if _, err := Load("factreasoner/nope"); err == nil {
		t.Error("an unknown prompt loaded")
	}
}

// TestFill: one pass, every placeholder given and no other.
func TestFill(t *testing.T) {
	tmpl, err := Load("factreasoner/nli-v2")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Fill(map[string]string{"premise_text": "P {{hypothesis_text}}", "hypothesis_text": "H"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "Your task:\nPREMISE: P {{hypothesis_text}}\nHYPOTHESIS: H\n") {
		t.Errorf("filled prompt ends %q", got[len(got)-60:])
	}
	if _, err := tmpl.Fill(map[string]string{"premise_text": "P"}); err == nil {
		t.Error("a missing value filled")
	}
	if _, err := tmpl.Fill(map[string]string{"premise_text": "P", "hypothesis_text": "H", "topic": "T"}); err == nil {
		t.Error("a value for no placeholder filled")
	}
}

// TestSelection: the spellings of --prompts, and the run identity's name.
func TestSelection(t *testing.T) {
	all := Stages()
	for _, tc := range []struct {
		spec, name, err string
		used            []string
	}{
		{spec: "", name: "", used: all},
		{spec: "default", name: "", used: all},
		{spec: "factreasoner", name: "factreasoner", used: all},
		{spec: "factreasoner", name: "factreasoner", used: []string{NLI}},
		{spec: "factreasoner", name: "", used: nil},
		{spec: "atomizer=factreasoner", name: "atomizer=factreasoner", used: all},
		{spec: "atomizer=factreasoner", name: "factreasoner", used: []string{Atomizer}},
		{spec: "nli=factreasoner, atomizer=factreasoner", name: "atomizer=factreasoner,nli=factreasoner", used: all},
		{spec: "querybuilder=factreasoner", name: "querybuilder=factreasoner", used: all},
		{spec: "querybuilder=factreasoner", name: "factreasoner", used: []string{QueryBuilder}},
		{spec: "querybuilder=factreasoner", name: "", used: []string{Atomizer, NLI}},
		{spec: "atomizer=factreasoner,atomizer=default", err: "given twice"},
		{spec: "ibm", err: "not a prompt set"},
		{spec: "retriever=factreasoner", err: "not a stage"},
		{spec: "nli=ibm", err: "not a prompt set"},
		{spec: "nli", err: "not a prompt set"},
	} {
		s, err := ParseSelection(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || s.Name(tc.used) != tc.name {
			t.Errorf("%q over %v: name %q (%v), want %q", tc.spec, tc.used, s.Name(tc.used), err, tc.name)
		}
	}
}
