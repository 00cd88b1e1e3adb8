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

// LoadData is data NAME = load("PATH", sep = ",", na = [...], order = {...}).
type LoadData struct {
	At   dsl.Position
	Name string
	Path string
	// Sep is the field separator; 0 means ','.
	Sep rune
	// NA lists the cell texts that mark a missing value besides an empty
	// cell, NA and NaN.
	NA []string
	// Order gives, for text columns, their labels from lowest to highest;
	// a key [a, b] of the order map gives each of its columns the same order.
	Order map[string][]string
	// OrderAll is the order of every other column holding text, from the
	// key * of the order map; nil when there is none.
	OrderAll []string
	// Drop names the columns of the file to leave out (identifiers, free
	// text): their cells are not read, and the data set has no such column.
	Drop []string
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

// Explain is explain NAME, or explain fit NAME with ... (Fit set).
type Explain struct {
	At    dsl.Position
	Model string
	// Fit holds the settings to plan with; nil means the fit's defaults.
	Fit *Fit
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
	// ESS, when not 0, is a target: after its iter iterations the fit
	// goes on until every entry of C has bulk and tail ESS of at least
	// ESS and split R-hat at most 1.01, running at most ESSLimit times
	// iter iterations per chain after warm-up.
	ESS int
	// File, when not empty, keeps the fit in a file: a fit the file holds
	// of the same data, model and settings is read instead of sampled; any
	// other fit is sampled and written there.
	File string
}

// ESSLimit bounds a fit or extension with an ESS target: its chains run at
// most ESSLimit times its iter after warm-up.
const ESSLimit = 20

// Extend is extend NAME [, iter = N]: N more post-warm-up iterations of
// every chain of the model's fit, each from where it stopped.
type Extend struct {
	At    dsl.Position
	Model string
	// Iter is the number of further iterations per chain; 0 (not given)
	// means as many as the fit kept, its iter, so the draws double — or,
	// with an ESS target, none before the target's own rounds.
	Iter int
	// ESS, when not 0, is a target as for Fit: the chains run on until it
	// is met, at most ESSLimit times the fit's iter in all after warm-up.
	ESS int
}

// Summary is summary EXPR [, prob = P].
type Summary struct {
	At     dsl.Position
	Target Ref
	// Prob is the probability of the central interval whose bounds the
	// summary shows (DefaultProb, the 5% and 95% quantiles, unless given).
	Prob float64
	// Sort is the column (one of SummarySorts) whose worst values come
	// first, or "" for the rows in the order of the selection.
	Sort string
	// Columns are the columns of a data set whose levels summary DATA[COL,
	// ...] counts; nil for the other summaries (and while Unresolved).
	Columns []string
	// Minus is B of summary A - B (Target is A): the difference of two
	// parts of fitted models, draw by draw; nil otherwise.
	Minus *Ref
	// Path is the file of summary ... to "PATH", which the table shown is
	// written to as CSV, LaTeX or Markdown by its extension (one of
	// SummaryExtensions); "" for none.
	Path string
	// Written is what the statement summarises as its source writes it
	// (formatted: m.regress(degree ~ income), gss[income, degree], a.C -
	// b.C), which a file it writes quotes.
	Written string
	// Layout is "matrix" for layout = matrix (a whole C or partial, or a
	// difference of two, as its lower triangle; a whole Lambda as a row
	// per column and a column per factor), "" for the long layout of one
	// row per scalar (layout = long, the default).
	Layout string
	// Statistics are the statistics (of SummaryStatistics, or for Lambda
	// laid out as a matrix of LoadingsMatrixColumns) the table shows, in
	// order, as columns = names them; nil when not given: every column in
	// the table shown and the CSV, PaperStatistics in a .tex or .md file
	// (the long layout), mean and interval (the matrix layout), and the
	// communality too (LoadingsMatrixDefault) for Lambda.
	Statistics []string
	// Width is the text width in pt that a .tex file's tabulars fit
	// (width = N); 0 when not given: DefaultTeXWidth.
	Width float64
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
	// Minus is B of plot KIND A - B (Target is A), nil otherwise.
	Minus *Ref
	// Prob is the probability of the central interval whose exclusion
	// of 0 makes a pair an edge of plot graph (DefaultProb unless given; 0 for
	// the other kinds).
	Prob float64
	// Path is the file of plot ... to "PATH", which the figure is written
	// to as PDF, SVG or PNG by its extension (one of PlotExtensions); ""
	// for none.
	Path string
	// Written is what the statement plots as its source writes it
	// (formatted), which an error writing its file quotes.
	Written string
	// Edges is the most edges plot graph draws, the strongest; 0 (unless
	// given) leaves it to the figure (figure.DefaultGraphEdges).
	Edges int
	// Order is the order of plot heatmap's rows and columns, one of
	// HeatmapOrders: "columns" (unless given) or "dependence"; "" for the
	// other kinds.
	Order string
	// OrderOf is, for plot heatmap ..., order = NAME, the matrix whose
	// order by dependence the heatmap's rows and columns take: NAME.C or
	// NAME.partial of a fitted model (the part drawn, unless named), or a
	// simulation's true C (Member "C"); nil otherwise. It overrides Order.
	OrderOf *Ref
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

// Impute is impute NAME [to "PATH"] [, draws = "PATH", prob = P].
type Impute struct {
	At    dsl.Position
	Model string
	// Path is the CSV file of one row per missing cell ("" shows a table).
	Path string
	// DrawsPath is the CSV file of every kept draw of every missing cell
	// ("" for none).
	DrawsPath string
	// Prob is the probability of the central interval of levels shown
	// (DefaultProb unless given).
	Prob float64
	// Columns are the columns of impute m[COL, ...] (0-based, model
	// order), whose missing cells alone it shows or writes; nil for every
	// column, or while Unresolved. Items are the columns as written.
	Columns []int
	Items   []IndexItem
	// Unresolved is true when the model's columns were unknown at check
	// time (see Stmt.Partial).
	Unresolved bool
}

// Export is export NAME to "PATH", or export REF to "PATH" for a part of a
// model (m.C[INC], m.Lambda, m.partial, m.communality, m.regress(Y ~ X)).
type Export struct {
	At dsl.Position
	// Data is the data set of export DATA to "PATH", which writes its
	// cells; empty when a model's draws are exported.
	Data  string
	Model string
	// Part is the reference for the draws of a part of the model; nil for
	// the whole model, whose export has the stable layout of C (and Λ).
	Part *Ref
	Path string
}

// Show is show NAME or show [NAME, NAME, ...] (a side-by-side comparison).
type Show struct {
	At dsl.Position
	// Names are the bindings to show, at least one; Name is the first.
	Names []string
	Name  string
}

// Ref is a reference to a binding or a part of a model: m, m.C, m.C[1, 2],
// m.C[INC, DEG], m.Lambda[INC, 2], m.Z[INC], m.partial[INC, DEG],
// m.communality[INC], m.regress(INC ~ DEG + AGE)[DEG], or a data set gss.
type Ref struct {
	At   dsl.Position
	Name string
	// Member is "", "C", "Lambda", "Z", "partial", "communality" or
	// "regress".
	Member string
	// Index holds the indices, 0-based: model columns for C, Z, partial
	// and communality, a model column then a factor for Lambda; for
	// regress, a predictor (0..k-1, in Regress.Predictors' order) or k for
	// R². Nil when there is no index or when Unresolved.
	Index []int
	// Regress is the formula of m.regress(Y ~ X1 + X2), nil otherwise (and
	// when Unresolved).
	Regress *Regression
	// Items are the indices as written.
	Items []IndexItem
	// Unresolved is true when the model's columns were unknown at check
	// time (see Stmt.Partial); Index is then nil.
	Unresolved bool
}

// Part is the member r selects: Member, or C for a model alone (summary m
// is summary m.C).
func (r *Ref) Part() string {
	if r.Member == "" {
		return "C"
	}
	return r.Member
}

// Regression is the formula of m.regress(Y ~ X1 + X2 + ...), as model
// columns (0-based): the regression of latent z_Y on z_X1, z_X2, ...
type Regression struct {
	Response   int
	Predictors []int
}

// CheckStmt is check NAME [, SETTING = VALUE ...], or check NAME[COL,
// COL], which adds the two-way table of the pair.
type CheckStmt struct {
	At    dsl.Position
	Model string
	// Pair holds the two columns of check m[A, B] (0-based, model order),
	// nil for check m or while Unresolved.
	Pair []int
	// Items are the pair's columns as written.
	Items []IndexItem
	// Draws and Reps are the replications (default
	// inference.DefaultCheckDraws and DefaultCheckReps), Stat the rank
	// correlation (default spearman).
	Draws, Reps int
	Stat        inference.RankStat
	// Seed seeds the replications; when SeedGiven is false the fit's seed
	// is used.
	Seed      uint64
	SeedGiven bool
	// Unresolved is true when the model's columns were unknown at check
	// time (see Stmt.Partial).
	Unresolved bool
}

// Compare is compare M1, M2, ... [, holdout = , folds = , seed = ]: the
// models' held-out predictive scores.
type Compare struct {
	At     dsl.Position
	Models []string
	// Holdout is the share of cells held out when Folds is 1 (default
	// 0.1); with Folds ≥ 2 every eligible cell is held out once.
	Holdout float64
	Folds   int
	// Seed chooses the held-out cells (default 1); each refit uses its
	// model's fit settings, seed included.
	Seed uint64
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
func (s *Extend) Pos() dsl.Position       { return s.At }
func (s *Summary) Pos() dsl.Position      { return s.At }
func (s *PlotStmt) Pos() dsl.Position     { return s.At }
func (s *Impute) Pos() dsl.Position       { return s.At }
func (s *Export) Pos() dsl.Position       { return s.At }
func (s *Show) Pos() dsl.Position         { return s.At }
func (s *CheckStmt) Pos() dsl.Position    { return s.At }
func (s *Compare) Pos() dsl.Position      { return s.At }

func (s *LoadData) Partial() bool     { return false }
func (s *SimulateData) Partial() bool { return false }
func (s *DeclareModel) Partial() bool { return s.partial }
func (s *Explain) Partial() bool      { return false }
func (s *Fit) Partial() bool          { return false }
func (s *Extend) Partial() bool       { return false }
func (s *Summary) Partial() bool      { return s.Target.Unresolved || s.Minus != nil && s.Minus.Unresolved }
func (s *PlotStmt) Partial() bool {
	if s.Target.Unresolved || s.Minus != nil && s.Minus.Unresolved {
		return true
	}
	for _, r := range s.Others {
		if r.Unresolved {
			return true
		}
	}
	return false
}
func (s *Impute) Partial() bool    { return s.Unresolved }
func (s *Export) Partial() bool    { return s.Part != nil && s.Part.Unresolved }
func (s *Show) Partial() bool      { return false }
func (s *CheckStmt) Partial() bool { return s.Unresolved }
func (s *Compare) Partial() bool   { return false }
