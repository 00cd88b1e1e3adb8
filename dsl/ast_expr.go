package dsl

// Statements that show values rather than declare or run anything.

// ExprStmt is a bare expression, as in m.C[1, 2] or 2 * pi: its value is
// the cell's result (Jupyter's execute_result). It is the last branch of
// the Stmt union, and it never starts with a statement keyword (the
// negative lookahead lists statementKeywords; a test keeps them equal), so
// that `explain` alone is an incomplete explain, not a name.
type ExprStmt struct {
	Pos, EndPos Position

	Value *Expr `parser:"(?! 'data' | 'model' | 'explain' | 'fit' | 'extend' | 'summary' | 'plot' | 'impute' | 'predict' | 'export' | 'show' | 'check' | 'compare' | 'print' | 'help' | 'clear' ) @@"`
}

// PrintStmt is print EXPR, ...: writes the values to standard output,
// separated by spaces.
type PrintStmt struct {
	Pos, EndPos Position

	Values []*Expr `parser:"'print' @@ ( ',' @@ )*"`
}

// HelpStmt is help [WORD]: the documentation of a word of the language,
// or the list of statements, written into the cell's output.
type HelpStmt struct {
	Pos, EndPos Position

	Topic *Ident `parser:"'help' @@?"`
}

// ClearStmt is clear: clears what the cell has shown so far.
type ClearStmt struct {
	Pos, EndPos Position

	Keyword string `parser:"@'clear'"`
}

func (*ExprStmt) stmt()  {}
func (*PrintStmt) stmt() {}
func (*HelpStmt) stmt()  {}
func (*ClearStmt) stmt() {}

func (n *ExprStmt) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *PrintStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
func (n *HelpStmt) Span() (Position, Position)  { return n.Pos, n.EndPos }
func (n *ClearStmt) Span() (Position, Position) { return n.Pos, n.EndPos }
