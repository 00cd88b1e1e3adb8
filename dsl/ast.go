package dsl

// The AST is a faithful picture of the text, built by participle from the
// struct tags below (the grammar is pinned in testdata/grammar.ebnf). Every
// node has Pos (its first token) and EndPos (just after its last token).
// Meaning is given by package compiler.

// File is a parsed script or notebook cell: statements separated by
// newlines or ';'.
type File struct {
	Pos, EndPos Position

	Stmts []Stmt `parser:"Sep* ( @@ ( Sep+ @@? )* )?"`
}

// Stmt is a top-level statement: *DataStmt, *ModelStmt, *ExplainStmt,
// *FitStmt, *ExtendStmt, *SummaryStmt, *PlotStmt, *ImputeStmt, *PredictStmt, *ExportStmt, *ShowStmt,
// *CheckStmt or *CompareStmt.
// New statements are added by adding a type to this union.
type Stmt interface {
	Node
	stmt()
}

// Node is any AST node.
type Node interface {
	// Span returns the node's first position and the position just after it.
	Span() (start, end Position)
}

// DataStmt binds a data set: data NAME = load("PATH", ...),
// data NAME = simulate(SPEC, n = ..., ...), or a data set derived from
// another, data NAME = SOURCE[COL, ...] where CONDITION. The right-hand
// side is any expression; the compiler accepts the calls load and
// simulate, and a data set's name with or without an index.
type DataStmt struct {
	Pos, EndPos Position

	Name  *Ident `parser:"'data' @@ '='"`
	Value *Expr  `parser:"@@"`
	Where *Cond  `parser:"( 'where' @@ )?"`
}

// Cond is a condition on the rows of a data set, as in
// age >= 50 and degree != 0: CondAnd ('or' CondAnd)*.
type Cond struct {
	Pos, EndPos Position

	Head *CondAnd   `parser:"@@"`
	Tail []*CondAnd `parser:"( 'or' @@ )*"`
}

// CondAnd is CondNot ('and' CondNot)*.
type CondAnd struct {
	Pos, EndPos Position

	Head *CondNot   `parser:"@@"`
	Tail []*CondNot `parser:"( 'and' @@ )*"`
}

// CondNot is 'not' CondNot, a parenthesised condition, or a comparison.
// Exactly one field is set.
type CondNot struct {
	Pos, EndPos Position

	Not   *CondNot    `parser:"  'not' @@"`
	Paren *Cond       `parser:"| '(' @@ ')'"`
	Test  *Comparison `parser:"| @@"`
}

// Comparison compares a column, by name or quoted name, with a value:
// COL OP EXPR (OP one of == != < <= > >=), or COL in [EXPR, ...].
type Comparison struct {
	Pos, EndPos Position

	Column    *Ident     `parser:"( @@"`
	ColumnStr *StringLit `parser:"| @@ )"`
	Op        string     `parser:"( @( '==' | '!=' | '<=' | '>=' | '<' | '>' )"`
	Value     *Expr      `parser:"  @@"`
	In        *List      `parser:"| 'in' @@ )"`
}

// ColumnName is the column's name as the comparison writes it, unquoted.
func (c *Comparison) ColumnName() string {
	if c.Column != nil {
		return c.Column.Name
	}
	return c.ColumnStr.Value
}

// ModelStmt declares a model: model NAME { ITEM; ITEM ... }.
type ModelStmt struct {
	Pos, EndPos Position

	Name  *Ident      `parser:"'model' @@ '{' Sep*"`
	Items []ModelItem `parser:"( @@ ( Sep+ @@? )* )? '}'"`
}

// ModelItem is one statement inside a model block: *Assign (Y = gss),
// *Tilde (C ~ InverseWishart(df = p + 2)) or *Relation (Y ordinal Z).
type ModelItem interface {
	Node
	modelItem()
}

// Assign is NAME = EXPR inside a model, as in Y = gss[INC, DEG].
type Assign struct {
	Pos, EndPos Position

	Name  *Ident `parser:"@@ '='"`
	Value *Expr  `parser:"@@"`
}

// Tilde is NAME ~ EXPR inside a model: a distribution statement.
type Tilde struct {
	Pos, EndPos Position

	Name *Ident `parser:"@@ '~'"`
	Dist *Expr  `parser:"@@"`
}

// Relation is NAME RELATION NAME inside a model, as in Y ordinal Z: a link
// between observed and latent variables. The relation is an identifier so
// that later links need no grammar change.
type Relation struct {
	Pos, EndPos Position

	Left     *Ident `parser:"@@"`
	Relation *Ident `parser:"@@"`
	Right    *Ident `parser:"@@"`
}

// ExplainStmt is explain NAME, or explain fit NAME with ... to plan with a
// fit's settings (Fit is then set and Model is nil).
type ExplainStmt struct {
	Pos, EndPos Position

	Fit   *FitStmt `parser:"'explain' ( @@"`
	Model *Ident   `parser:"| @@ )"`
}

// Target is the model explained: Model, or the model of Fit.
func (s *ExplainStmt) Target() *Ident {
	if s.Fit != nil {
		return s.Fit.Model
	}
	return s.Model
}

// FitStmt is fit NAME [with METHOD[(ARGS)]] [, NAME = EXPR ...].
type FitStmt struct {
	Pos, EndPos Position

	Model    *Ident      `parser:"'fit' @@"`
	Method   *Method     `parser:"( 'with' @@ )?"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// ExtendStmt is extend NAME [, NAME = EXPR ...], as in extend m, iter = 2000:
// more iterations of every chain of a model's fit, from where they stopped.
type ExtendStmt struct {
	Pos, EndPos Position

	Model    *Ident      `parser:"'extend' @@"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// Method is the sampler choice of a fit: a name with optional arguments,
// as in hmc(T = pi/2). Parens is true when the parentheses were written.
type Method struct {
	Pos, EndPos Position

	Name   *Ident `parser:"@@"`
	Parens bool   `parser:"( @'('"`
	Args   []*Arg `parser:"  ( @@ ( ',' @@ )* ','? )? ')' )?"`
}

// NamedArg is NAME = EXPR, as in iter = 2000.
type NamedArg struct {
	Pos, EndPos Position

	Name  *Ident `parser:"@@ '='"`
	Value *Expr  `parser:"@@"`
}

// SummaryStmt is summary EXPR [to "PATH"] [, NAME = EXPR ...], as in
// summary m.C, prob = 0.8 or summary m.partial to "partial.tex": the
// table shown is also written to PATH (CSV, LaTeX or Markdown, by its
// extension).
type SummaryStmt struct {
	Pos, EndPos Position

	Target   *Expr       `parser:"'summary' @@"`
	Path     *StringLit  `parser:"( 'to' @@ )?"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// PlotStmt is plot KIND EXPR [vs NAME] [to "PATH"] [, NAME = EXPR ...],
// as in plot rmse m vs sim, plot graph m.partial, prob = 0.95 or plot
// heatmap m.C to "C.pdf": the figure is also written to PATH (PDF, SVG or
// PNG, by its extension).
type PlotStmt struct {
	Pos, EndPos Position

	Kind     *Ident      `parser:"'plot' @@"`
	Target   *Expr       `parser:"@@"`
	Vs       *Ident      `parser:"( 'vs' @@ )?"`
	Path     *StringLit  `parser:"( 'to' @@ )?"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// ImputeStmt is impute NAME[COL, ...] [to "PATH"] [, NAME = EXPR ...],
// as in impute m to "cells.csv", draws = "cell_draws.csv" or impute
// m[income, age]; the columns are optional.
type ImputeStmt struct {
	Pos, EndPos Position

	Model    *Ident      `parser:"'impute' @@"`
	Columns  *Index      `parser:"@@?"`
	Path     *StringLit  `parser:"( 'to' @@ )?"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// PredictStmt is predict NAME[COL, ...] [given COL = VALUE, ...]
// [, NAME = EXPR ...], as in predict m[degree] given income = 5,
// pdegree = 3: the model's distribution of the columns in brackets (every
// column not given when there are none) given values of others, for a new
// row. After given every NAME = VALUE is a GivenValue (the compiler reads
// those that name a setting of predict, not a column, as settings);
// without given the settings follow the target.
type PredictStmt struct {
	Pos, EndPos Position

	Model    *Ident        `parser:"'predict' @@"`
	Columns  *Index        `parser:"@@?"`
	Given    []*GivenValue `parser:"( 'given' @@ ( ',' @@ )* )?"`
	Settings []*NamedArg   `parser:"( ',' @@ )*"`
}

// GivenValue is COL = VALUE after predict's given: a column by name or
// quoted name, and its value (a number, or a text column's label as a
// string).
type GivenValue struct {
	Pos, EndPos Position

	Column    *Ident     `parser:"( @@"`
	ColumnStr *StringLit `parser:"| @@ )"`
	Value     *Expr      `parser:"'=' @@"`
}

// ColumnName is the given column's name as written, unquoted.
func (g *GivenValue) ColumnName() string {
	if g.Column != nil {
		return g.Column.Name
	}
	return g.ColumnStr.Value
}

// ExportStmt is export TARGET to "PATH": a fitted model's draws, as in
// export m to "draws.csv", or those of a part of it, as in export
// m.partial to "partial.csv" or export m.regress(Y ~ X) to "reg.csv".
type ExportStmt struct {
	Pos, EndPos Position

	Target *Expr      `parser:"'export' @@"`
	Path   *StringLit `parser:"'to' @@"`
}

// ShowStmt is show NAME, or show [NAME, NAME, ...] to compare bindings
// side by side. The target is any expression; the compiler accepts a name
// or a list of names.
type ShowStmt struct {
	Pos, EndPos Position

	Target *Expr `parser:"'show' @@"`
}

// CheckStmt is check EXPR [, NAME = EXPR ...], as in check m or
// check m[INC, DEG], draws = 400.
type CheckStmt struct {
	Pos, EndPos Position

	Target   *Expr       `parser:"'check' @@"`
	Settings []*NamedArg `parser:"( ',' @@ )*"`
}

// CompareStmt is compare NAME, NAME [, ...] [, NAME = EXPR ...]: models
// and settings, in any order as far as the grammar goes (the compiler
// wants the models first).
type CompareStmt struct {
	Pos, EndPos Position

	Items []*CompareItem `parser:"'compare' @@ ( ',' @@ )*"`
}

// CompareItem is a setting (NAME = EXPR) or a model name. Exactly one
// field is set.
type CompareItem struct {
	Pos, EndPos Position

	Setting *NamedArg `parser:"  @@"`
	Model   *Ident    `parser:"| @@"`
}

// Ident is a name with its position.
type Ident struct {
	Pos, EndPos Position

	Name string `parser:"@Ident"`
}

// StringLit is a string literal; Value is unquoted.
type StringLit struct {
	Pos, EndPos Position

	Value string `parser:"@String"`
}

// NumberLit is a number literal as written (digits, optional fraction and
// exponent); the compiler converts it.
type NumberLit struct {
	Pos, EndPos Position

	Text string `parser:"@Number"`
}

// Expr is a sum: Term (('+' | '-') Term)*.
type Expr struct {
	Pos, EndPos Position

	Head *Term     `parser:"@@"`
	Tail []*OpTerm `parser:"@@*"`
}

// OpTerm is one '+ Term' or '- Term' of a sum.
type OpTerm struct {
	Pos, EndPos Position

	Op   string `parser:"@( '+' | '-' )"`
	Term *Term  `parser:"@@"`
}

// Term is a product: Unary (('*' | '/') Unary)*.
type Term struct {
	Pos, EndPos Position

	Head *Unary     `parser:"@@"`
	Tail []*OpUnary `parser:"@@*"`
}

// OpUnary is one '* Unary' or '/ Unary' of a product.
type OpUnary struct {
	Pos, EndPos Position

	Op    string `parser:"@( '*' | '/' )"`
	Unary *Unary `parser:"@@"`
}

// Unary is '-' Unary or a Postfix expression. Exactly one field is set.
type Unary struct {
	Pos, EndPos Position

	Neg     *Unary   `parser:"  '-' @@"`
	Postfix *Postfix `parser:"| @@"`
}

// Postfix is a primary followed by member selections and indexings,
// as in m.C[1, 2].
type Postfix struct {
	Pos, EndPos Position

	Primary  *Primary  `parser:"@@"`
	Suffixes []*Suffix `parser:"@@*"`
}

// Suffix is '.' NAME (Member), optionally called with arguments as in
// m.regress(INC ~ DEG + AGE) (Call), or '[' EXPR, ... ']' (Index). Exactly
// one of Member and Index is set.
type Suffix struct {
	Pos, EndPos Position

	Member *Ident      `parser:"  '.' @@"`
	Call   *MemberCall `parser:"  @@?"`
	Index  *Index      `parser:"| @@"`
}

// MemberCall is the argument list of a called member: '(' ARG, ... ')'.
type MemberCall struct {
	Pos, EndPos Position

	Args []*Arg `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
}

// Index is '[' EXPR, ... ']' after an expression.
type Index struct {
	Pos, EndPos Position

	Items []*Expr `parser:"'[' ( @@ ( ',' @@ )* ','? )? ']'"`
}

// Primary is a literal, a call, a name, a parenthesised expression, a list
// or a map. Exactly one field is set.
type Primary struct {
	Pos, EndPos Position

	Number *NumberLit `parser:"  @@"`
	Str    *StringLit `parser:"| @@"`
	Call   *Call      `parser:"| @@"`
	Name   *Ident     `parser:"| @@"`
	Paren  *Expr      `parser:"| '(' @@ ')'"`
	List   *List      `parser:"| @@"`
	Map    *Map       `parser:"| @@"`
}

// Call is NAME(ARGS), as in InverseWishart(df = p + 2) or load("x.csv").
type Call struct {
	Pos, EndPos Position

	Func *Ident `parser:"@@ '('"`
	Args []*Arg `parser:"( @@ ( ',' @@ )* ','? )? ')'"`
}

// Arg is a call argument, positional (Name nil) or named (name = value).
// A positional argument may be a formula VALUE ~ RHS, as in
// m.regress(INC ~ DEG + AGE); Rhs is nil otherwise.
type Arg struct {
	Pos, EndPos Position

	Name  *Ident `parser:"( @@ '=' )?"`
	Value *Expr  `parser:"@@"`
	Rhs   *Expr  `parser:"( '~' @@ )?"`
}

// List is '[' EXPR, ... ']'.
type List struct {
	Pos, EndPos Position

	Items []*Expr `parser:"'[' ( @@ ( ',' @@ )* ','? )? ']'"`
}

// Map is '{' KEY: EXPR, ... '}', as in order = {sex: ["m", "f"]}.
type Map struct {
	Pos, EndPos Position

	Entries []*MapEntry `parser:"'{' ( @@ ( ',' @@ )* ','? )? '}'"`
}

// MapEntry is KEY: EXPR. The key is a name or a string (Key), '*' (All: every
// other key), or a list of names or strings (Keys: the same value for each),
// as in order = {[q1, q2]: ["no", "yes"], *: ["low", "high"]}.
type MapEntry struct {
	Pos, EndPos Position

	Key   string   `parser:"( @( Ident | String )"`
	All   bool     `parser:"| @'*'"`
	Keys  []string `parser:"| '[' @( Ident | String ) ( ',' @( Ident | String ) )* ','? ']' ) ':'"`
	Value *Expr    `parser:"@@"`
}

func (*DataStmt) stmt()    {}
func (*ModelStmt) stmt()   {}
func (*ExplainStmt) stmt() {}
func (*FitStmt) stmt()     {}
func (*ExtendStmt) stmt()  {}
func (*SummaryStmt) stmt() {}
func (*PlotStmt) stmt()    {}
func (*ImputeStmt) stmt()  {}
func (*PredictStmt) stmt() {}
func (*ExportStmt) stmt()  {}
func (*ShowStmt) stmt()    {}
func (*CheckStmt) stmt()   {}
func (*CompareStmt) stmt() {}

func (*Assign) modelItem()   {}
func (*Tilde) modelItem()    {}
func (*Relation) modelItem() {}

func (n *File) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *DataStmt) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *ModelStmt) Span() (Position, Position)   { return n.Pos, n.EndPos }
func (n *Assign) Span() (Position, Position)      { return n.Pos, n.EndPos }
func (n *Tilde) Span() (Position, Position)       { return n.Pos, n.EndPos }
func (n *Relation) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *ExplainStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *FitStmt) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *ExtendStmt) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *Method) Span() (Position, Position)      { return n.Pos, n.EndPos }
func (n *NamedArg) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *SummaryStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *PlotStmt) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *ImputeStmt) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *PredictStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *GivenValue) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *ExportStmt) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *ShowStmt) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *CheckStmt) Span() (Position, Position)   { return n.Pos, n.EndPos }
func (n *CompareStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *CompareItem) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *MemberCall) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *Ident) Span() (Position, Position)       { return n.Pos, n.EndPos }
func (n *StringLit) Span() (Position, Position)   { return n.Pos, n.EndPos }
func (n *NumberLit) Span() (Position, Position)   { return n.Pos, n.EndPos }
func (n *Expr) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *OpTerm) Span() (Position, Position)      { return n.Pos, n.EndPos }
func (n *Term) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *OpUnary) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *Unary) Span() (Position, Position)       { return n.Pos, n.EndPos }
func (n *Postfix) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *Suffix) Span() (Position, Position)      { return n.Pos, n.EndPos }
func (n *Index) Span() (Position, Position)       { return n.Pos, n.EndPos }
func (n *Primary) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *Call) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *Arg) Span() (Position, Position)         { return n.Pos, n.EndPos }
func (n *List) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *Map) Span() (Position, Position)         { return n.Pos, n.EndPos }
func (n *MapEntry) Span() (Position, Position)    { return n.Pos, n.EndPos }
func (n *Cond) Span() (Position, Position)        { return n.Pos, n.EndPos }
func (n *CondAnd) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *CondNot) Span() (Position, Position)     { return n.Pos, n.EndPos }
func (n *Comparison) Span() (Position, Position)  { return n.Pos, n.EndPos }

// Simple views of an expression, for consumers that expect a particular shape.

// AsPostfix returns the postfix expression e consists of, if e has no
// operators (it is a primary with optional suffixes). Parentheses around
// the whole of e are looked through: (m.C) is m.C, as summary(m.C) and
// print("hi") are written in R and Python.
func (e *Expr) AsPostfix() (*Postfix, bool) {
	for {
		if e == nil || len(e.Tail) > 0 || len(e.Head.Tail) > 0 || e.Head.Head.Postfix == nil {
			return nil, false
		}
		pf := e.Head.Head.Postfix
		if pf.Primary.Paren == nil || len(pf.Suffixes) > 0 {
			return pf, true
		}
		e = pf.Primary.Paren
	}
}

// AsPrimary returns the primary e consists of, if e is a bare primary.
func (e *Expr) AsPrimary() (*Primary, bool) {
	p, ok := e.AsPostfix()
	if !ok || len(p.Suffixes) > 0 {
		return nil, false
	}
	return p.Primary, true
}

// AsName returns the identifier e consists of, if e is a bare name.
func (e *Expr) AsName() (*Ident, bool) {
	p, ok := e.AsPrimary()
	if !ok || p.Name == nil {
		return nil, false
	}
	return p.Name, true
}

// AsCall returns the call e consists of, if e is a bare call.
func (e *Expr) AsCall() (*Call, bool) {
	p, ok := e.AsPrimary()
	if !ok || p.Call == nil {
		return nil, false
	}
	return p.Call, true
}
