package session

import "maps"

// bindingsView is an immutable picture of the bindings, taken after each
// statement, for the requests an editor makes while a cell may be running
// (completion, inspection): they read the latest view and never the live
// maps, which the running cell changes. Data sets and a model's declaration
// are not changed once bound; a model's fit is, so models are copied.
type bindingsView struct {
	names  []string
	data   map[string]*Dataset
	models map[string]*Model
}

// publishView replaces the view with the current bindings. It runs on the
// goroutine that executes cells.
func (s *Session) publishView() {
	v := &bindingsView{
		names:  append([]string(nil), s.names...),
		data:   maps.Clone(s.data),
		models: make(map[string]*Model, len(s.models)),
	}
	for name, m := range s.models {
		c := *m
		v.models[name] = &c
	}
	s.view.Store(v)
}

// bindings returns the latest view.
func (s *Session) bindings() *bindingsView {
	return s.view.Load()
}
