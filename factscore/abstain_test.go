package factscore

import "testing"

// TestAbstained checks FActScore's two abstention rules on answers of the
// kinds they were written for.
func TestAbstained(t *testing.T) {
	tests := []struct {
		rule     Abstention
		response string
		want     bool
	}{
		{AbstentionGeneric, "I'm sorry, I could not find information about Lanny Flaherty.", true},
		{AbstentionGeneric, "I’m sorry, but I don't have information on this person.", true}, // typographic apostrophe
		{AbstentionGeneric, "Could you provide more details about which Lanny Flaherty you mean?", true},
		{AbstentionGeneric, "Lanny Flaherty is an American actor. I'm sorry for his loss.", false},
		{AbstentionGeneric, "Lanny Flaherty was born in 1942.", false},
		{AbstentionNone, "I'm sorry, I could not find information about Lanny Flaherty.", false},
		{AbstentionPerplexity, "I could not find any information about Kalki Koechlin's early life [1].", true},
		{AbstentionPerplexity, "There is no information available on this person.", true},
		{AbstentionPerplexity, "Kalki Koechlin is an actress [1][2]. She was born in 1984 [3].\n\nThe search results do not provide her age.", false},
		{AbstentionPerplexity, "Kalki Koechlin is an actress, but her birthplace is not provided in the search results [2].\n\nShe is French.", true},
		{AbstentionPerplexity, "\n\nKalki Koechlin is an actress.", true}, // the first paragraph is empty
		{AbstentionPerplexity, "Kalki Koechlin is an actress.", false},
	}
	for _, tc := range tests {
		if got := tc.rule.Abstained(tc.response); got != tc.want {
			t.Errorf("%s: %q: got %v, want %v", tc.rule, tc.response, got, tc.want)
		}
	}
	if _, err := ParseAbstention("sometimes"); err == nil {
		t.Error("ParseAbstention accepted an unknown rule")
	}
}
