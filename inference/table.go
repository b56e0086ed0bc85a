package inference

// Joint tables over a clique are flat float64 slices with the last variable
// changing fastest. The loops below walk such a table once while keeping
// track of the matching entry in each smaller table whose variables are a
// subset of the clique's. The trailing variables of the clique form an
// inner block of at least minBlock entries; for each smaller table the
// offsets of the block's entries are computed once, so the innermost loops
// are plain slice walks with no per-entry index arithmetic.

const minBlock = 64

// layout is the shape of a clique table.
type layout struct {
	vars  []int // the variables, where the owner needs them
	cards []int // domain size of each clique variable, last fastest
	size  int   // number of entries
	outer int   // the first outer variables are walked by an odometer
	block int   // entries per inner block (product of the inner cards)
}

func newLayout(cards []int) *layout {
	l := &layout{cards: cards, size: 1}
	for _, c := range cards {
		l.size *= c
	}
	l.outer, l.block = len(cards), 1
	for l.outer > 0 && l.block < minBlock {
		l.outer--
		l.block *= cards[l.outer]
	}
	return l
}

// view places a table over some of a layout's variables (in any order)
// inside the layout.
type view struct {
	strides []int   // for each outer variable, its stride in the table (0 if absent)
	offs    []int32 // for each entry of the inner block, its offset in the table
	flat    bool    // all offs are zero: the table does not vary within a block
}

// newView returns the view of a table whose variables are scope (given as
// positions in the layout).
func (l *layout) newView(scope []int) *view {
	stride := make([]int, len(l.cards)) // per layout position
	s := 1
	for i := len(scope) - 1; i >= 0; i-- {
		stride[scope[i]] = s
		s *= l.cards[scope[i]]
	}
	v := &view{strides: stride[:l.outer], offs: make([]int32, l.block), flat: true}
	// Offsets of the inner block, by an odometer over the inner variables.
	digits := make([]int, len(l.cards)-l.outer)
	off := 0
	for j := range l.block {
		v.offs[j] = int32(off)
		if off != 0 {
			v.flat = false
		}
		for k := len(digits) - 1; k >= 0; k-- {
			p := l.outer + k
			digits[k]++
			if digits[k] < l.cards[p] {
				off += stride[p]
				break
			}
			digits[k] = 0
			off -= (l.cards[p] - 1) * stride[p]
		}
	}
	return v
}

// odometer walks the outer variables of a layout, keeping the base index of
// each of a set of views.
type odometer struct {
	l      *layout
	views  []*view
	digits []int
	bases  []int
}

func (o *odometer) reset(l *layout, views []*view) {
	o.l, o.views = l, views
	o.digits = resize(o.digits, l.outer)
	clear(o.digits)
	o.bases = resize(o.bases, len(views))
	clear(o.bases)
}

// next advances to the next outer assignment.
func (o *odometer) next() {
	cards := o.l.cards
	for k := len(o.digits) - 1; k >= 0; k-- {
		o.digits[k]++
		if o.digits[k] < cards[k] {
			for t, v := range o.views {
				o.bases[t] += v.strides[k]
			}
			return
		}
		o.digits[k] = 0
		for t, v := range o.views {
			o.bases[t] -= (cards[k] - 1) * v.strides[k]
		}
	}
}

// sum sets dst[i] to the sum over tables t of tables[t] at the entry that
// matches clique entry i.
func (o *odometer) sum(dst []float64, l *layout, views []*view, tables [][]float64) {
	o.reset(l, views)
	clear(dst)
	for start := 0; start < l.size; start += l.block {
		blk := dst[start : start+l.block]
		for t, v := range views {
			tab, b := tables[t], o.bases[t]
			if v.flat {
				x := tab[b]
				for j := range blk {
					blk[j] += x
				}
				continue
			}
			tab = tab[b:]
			for j, off := range v.offs[:len(blk)] {
				blk[j] += tab[off]
			}
		}
		o.next()
	}
}

// marginalize adds each entry of src (a clique table) into the entry of dst
// (a table seen through v) that it maps to. dst is not cleared first.
func (o *odometer) marginalize(dst []float64, l *layout, v *view, src []float64) {
	views := [1]*view{v}
	o.reset(l, views[:])
	for start := 0; start < l.size; start += l.block {
		blk := src[start : start+l.block]
		b := o.bases[0]
		if v.flat {
			s := 0.0
			for _, x := range blk {
				s += x
			}
			dst[b] += s
		} else {
			d := dst[b:]
			for j, off := range v.offs[:len(blk)] {
				d[off] += blk[j]
			}
		}
		o.next()
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
