package jsonfields

import (
	"slices"
	"testing"
)

// TestOrdered: the fields in order, a repeated name's last value in the
// last one's place, anything but an object refused.
func TestOrdered(t *testing.T) {
	names, vals, err := Ordered([]byte(`{"b": 1, "a": {"x": [1, 2]}, "b": "two", "c": null}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vals {
		got = append(got, string(v))
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) || !slices.Equal(got, []string{`{"x": [1, 2]}`, `"two"`, "null"}) {
		t.Errorf("names %q, values %q", names, got)
	}
	for _, bad := range []string{`[1]`, `"s"`, ``, `{"a": }`} {
		if _, _, err := Ordered([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
