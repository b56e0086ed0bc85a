package natural

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestSort(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"a10", "a2", "a1", "a0"}, []string{"a0", "a1", "a2", "a10"}},
		{[]string{"c_a10_0", "c_a3_1", "c_a3_0", "c_q_0"}, []string{"c_a3_0", "c_a3_1", "c_a10_0", "c_q_0"}},
		{[]string{"a1", "a01", "a001", "a"}, []string{"a", "a1", "a01", "a001"}},
		{[]string{"b", "a9", "a", "a10b", "a10a"}, []string{"a", "a9", "a10a", "a10b", "b"}},
		{[]string{"12345678901234567890123", "99"}, []string{"99", "12345678901234567890123"}},
		{[]string{"x2y10", "x2y9", "x10y1"}, []string{"x2y9", "x2y10", "x10y1"}},
	}
	for _, tc := range tests {
		got := slices.Clone(tc.in)
		Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Sort(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAgainstNumbers: ids made of a prefix and a number sort as the pairs
// (prefix, number) do.
func TestAgainstNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type id struct {
		prefix string
		n      int
	}
	ids := make([]id, 500)
	for i := range ids {
		ids[i] = id{[]string{"a", "c_", "c_q_"}[r.IntN(3)], r.IntN(1000)}
	}
	slices.SortFunc(ids, func(x, y id) int {
		if x.prefix != y.prefix {
			if x.prefix < y.prefix {
				return -1
			}
			return 1
		}
		return x.n - y.n
	})
	got := make([]string, len(ids))
	for i, x := range ids {
		got[i] = x.prefix + strconv.Itoa(x.n)
	}
	want := slices.Clone(got)
	slices.Reverse(got)
	Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("natural order differs from (prefix, number) order:\n%q\nwant\n%q", got, want)
	}
}

// TestTotalOrder: Compare is antisymmetric, 0 only for equal strings, and
// transitive, over random strings of letters, digits and zeros.
func TestTotalOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ab_0019"
	random := func() string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		a, b, c := random(), random(), random()
		if Compare(a, b) != -Compare(b, a) {
			t.Fatalf("Compare(%q, %q) = %d, Compare(%q, %q) = %d", a, b, Compare(a, b), b, a, Compare(b, a))
		}
		if (Compare(a, b) == 0) != (a == b) {
			t.Fatalf("Compare(%q, %q) = %d", a, b, Compare(a, b))
		}
		if Compare(a, b) <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
	}
}
