package inference

// Component is a connected part of a model: variables linked through shared
// factors, and the factors over them.
type Component struct {
	Vars    []int // increasing
	Factors []int // indices into Model.Factors, increasing
}

// Components splits a model into connected components, ordered by their
// smallest variable. A variable in no factor is a component of its own.
func Components(m *Model) []Component {
	parent := make([]int, len(m.Cards))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, f := range m.Factors {
		for _, v := range f.Scope[min(1, len(f.Scope)):] {
			a, b := find(f.Scope[0]), find(v)
			if a != b {
				if a < b {
					parent[b] = a
				} else {
					parent[a] = b
				}
			}
		}
	}
	index := make(map[int]int) // root -> component
	var comps []Component
	for v := range m.Cards {
		r := find(v)
		ci, ok := index[r]
		if !ok {
			ci = len(comps)
			index[r] = ci
			comps = append(comps, Component{})
		}
		comps[ci].Vars = append(comps[ci].Vars, v)
	}
	// Each factor's component, counted first so that each list is
	// allocated once (the dense 500x1500 model has 864,587 factors).
	of := make([]int, len(m.Factors))
	counts := make([]int, len(comps))
	for i, f := range m.Factors {
		of[i] = -1
		if len(f.Scope) == 0 {
			continue
		}
		of[i] = index[find(f.Scope[0])]
		counts[of[i]]++
	}
	for ci, n := range counts {
		if n > 0 {
			comps[ci].Factors = make([]int, 0, n)
		}
	}
	for i, ci := range of {
		if ci >= 0 {
			comps[ci].Factors = append(comps[ci].Factors, i)
		}
	}
	return comps
}
