package compiler

import (
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// Program is a checked file: one IR statement per source statement, in order.
type Program struct {
	Stmts []Stmt
}

// Stmt is a checked statement. Every statement carries the position of its
// source statement.
type Stmt interface {
	// Pos is the position of the statement's first token.
	Pos() dsl.Position
	// Partial is true when part of the statement could not be checked
	// because it depends on a data set loaded earlier in the same file,
	// whose columns are unknown until it is read. Check the statement again
	// (alone, with the session's bindings up to date) before running it.
	Partial() bool
}

// LoadData is data NAME = load("PATH", order = {...}).
type LoadData struct {
	At   dsl.Position
	Name string
	Path string
	// Order gives, for text columns, their labels from lowest to highest.
	Order map[string][]string
}

// SimulateData is data NAME = simulate(SPEC, n = N, levels = L, seed = S, missing = M).
// The simulated columns are named Y1..Yp (as inference.Simulate names them).
type SimulateData struct {
	At      dsl.Position
	Name    string
	P, K    int // K = 0: FullCopula(p = P); K > 0: FactorCopula(p = P, k = K)
	N       int
	Levels  int
	Seed    uint64  // default 1
	Missing float64 // probability of a missing cell, default 0
}

// DeclareModel is model NAME { ... }.
type DeclareModel struct {
	At   dsl.Position
	Name string
	Data string
	// Columns are the data columns the model uses, in order: the listed
	// ones for Y = DATA[COL, ...], all of them for Y = DATA. Nil only when
	// the data's columns are unknown (Partial).
	Columns []string
	// Model is inference.FullCorrelation or inference.FactorModel, with the
	// prior's parameters evaluated (p + 2 and the like).
	Model   inference.Model
	partial bool
}

// Explain is explain NAME.
type Explain struct {
	At    dsl.Position
	Model string
}

// Fit is fit NAME with METHOD(T = ...), iter = ..., warmup = ..., chains = ..., seed = ..., thin = ...
//
// Defaults (sbgcop-like): method auto, iter 1000, warmup iter/2 (500),
// chains 4, seed 1, thin 1, T = π/2.
type Fit struct {
	At    dsl.Position
	Model string
	// Method is "auto", "gibbs", "hmc", "px" or "interweave", as written.
	Method string
	// TravelTime is the exact-HMC travel time T (hmc, interweave, auto).
	TravelTime                 float64
	Iter, Warmup, Chains, Thin int
	Seed                       uint64
}

// Summary is summary EXPR.
type Summary struct {
	At     dsl.Position
	Target Ref
}

// PlotStmt is plot KIND EXPR [vs NAME].
type PlotStmt struct {
	At     dsl.Position
	Kind   string
	Target Ref
	// Others are further models for plot rmse [m1, m2, ...] (Target is the first).
	Others []Ref
	// Vs is the data set named after vs ("" if none).
	Vs string
}

// Models returns the names of the models a plot shows: the target's and,
// for plot rmse [m1, m2], the others'.
func (p *PlotStmt) Models() []string {
	out := []string{p.Target.Name}
	for _, r := range p.Others {
		out = append(out, r.Name)
	}
	return out
}

// Impute is impute NAME.
type Impute struct {
	At    dsl.Position
	Model string
}

// Export is export NAME to "PATH".
type Export struct {
	At    dsl.Position
	Model string
	Path  string
}

// Show is show NAME or show [NAME, NAME, ...] (a side-by-side comparison).
type Show struct {
	At dsl.Position
	// Names are the bindings to show, at least one; Name is the first.
	Names []string
	Name  string
}

// Ref is a reference to a binding or a part of a model: m, m.C, m.C[1, 2],
// m.C[INC, DEG], m.Lambda[INC, 2], m.Z[INC], or a data set gss.
type Ref struct {
	At   dsl.Position
	Name string
	// Member is "", "C", "Lambda" or "Z".
	Member string
	// Index holds the indices, 0-based: model columns for C and Z, a model
	// column then a factor for Lambda. Nil when there is no index or when
	// Unresolved.
	Index []int
	// Items are the indices as written.
	Items []IndexItem
	// Unresolved is true when the model's columns were unknown at check
	// time (see Stmt.Partial); Index is then nil.
	Unresolved bool
}

// IndexItem is one index as written: a 1-based position or a column name.
type IndexItem struct {
	At       dsl.Position
	Position int    // 1-based, 0 when Column is set
	Column   string // a column name, "" when Position is set
}

func (s *LoadData) Pos() dsl.Position     { return s.At }
func (s *SimulateData) Pos() dsl.Position { return s.At }
func (s *DeclareModel) Pos() dsl.Position { return s.At }
func (s *Explain) Pos() dsl.Position      { return s.At }
func (s *Fit) Pos() dsl.Position          { return s.At }
func (s *Summary) Pos() dsl.Position      { return s.At }
func (s *PlotStmt) Pos() dsl.Position     { return s.At }
func (s *Impute) Pos() dsl.Position       { return s.At }
func (s *Export) Pos() dsl.Position       { return s.At }
func (s *Show) Pos() dsl.Position         { return s.At }

func (s *LoadData) Partial() bool     { return false }
func (s *SimulateData) Partial() bool { return false }
func (s *DeclareModel) Partial() bool { return s.partial }
func (s *Explain) Partial() bool      { return false }
func (s *Fit) Partial() bool          { return false }
func (s *Summary) Partial() bool      { return s.Target.Unresolved }
func (s *PlotStmt) Partial() bool {
	if s.Target.Unresolved {
		return true
	}
	for _, r := range s.Others {
		if r.Unresolved {
			return true
		}
	}
	return false
}
func (s *Impute) Partial() bool { return false }
func (s *Export) Partial() bool { return false }
func (s *Show) Partial() bool   { return false }
