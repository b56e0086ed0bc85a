package hftokenizer_test

import (
	"fmt"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
)

// A BERT tokenizer.json: a text alone (Hugging Face's
// encode(text, add_special_tokens=False), byte offsets into the text) and a
// pair with the model's special tokens and type ids.
func Example() {
	tok, err := hftokenizer.Load(filepath.Join("testdata", "tokenizers", "bert-base-uncased", "tokenizer.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := tok.Encode("Café in 2000")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.IDs, t.Tokens, t.Offsets)
	p, _ := tok.EncodePair("Café in 2000", "A café.")
	fmt.Println(p.IDs, p.TypeIDs)
	// Output:
	// [7668 1999 2456] [cafe in 2000] [[0 5] [6 8] [9 13]]
	// [101 7668 1999 2456 102 1037 7668 1012 102] [0 0 0 0 0 1 1 1 1]
}
