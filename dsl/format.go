package dsl

import (
	"strconv"
	"strings"
)

// Format prints f in canonical form: one statement per line, model items
// indented by two spaces, single spaces around '=', '~' and binary
// operators, ", " between arguments, comments dropped. Parsing the result
// gives the same canonical form again.
func Format(f *File) string {
	var b strings.Builder
	for _, s := range f.Stmts {
		b.WriteString(StmtString(s))
		b.WriteByte('\n')
	}
	return b.String()
}

// StmtString prints one statement in canonical form (a model over several lines).
func StmtString(s Stmt) string {
	var b strings.Builder
	switch s := s.(type) {
	case *DataStmt:
		b.WriteString("data " + s.Name.Name + " = " + s.Value.String())
		if s.Where != nil {
			b.WriteString(" where " + s.Where.String())
		}
	case *ModelStmt:
		b.WriteString("model " + s.Name.Name + " {\n")
		for _, it := range s.Items {
			b.WriteString("  " + ItemString(it) + "\n")
		}
		b.WriteString("}")
	case *ExplainStmt:
		if s.Fit != nil {
			b.WriteString("explain " + StmtString(s.Fit))
		} else {
			b.WriteString("explain " + s.Model.Name)
		}
	case *FitStmt:
		b.WriteString("fit " + s.Model.Name)
		if s.Method != nil {
			b.WriteString(" with " + s.Method.Name.Name)
			if s.Method.Parens {
				b.WriteString("(" + argsString(s.Method.Args) + ")")
			}
		}
		writeSettings(&b, s.Settings)
	case *ExtendStmt:
		b.WriteString("extend " + s.Model.Name)
		writeSettings(&b, s.Settings)
	case *SummaryStmt:
		b.WriteString("summary " + s.Target.String())
		if s.Path != nil {
			b.WriteString(" to " + strconv.Quote(s.Path.Value))
		}
		writeSettings(&b, s.Settings)
	case *PlotStmt:
		b.WriteString("plot " + s.Kind.Name + " " + s.Target.String())
		if s.Vs != nil {
			b.WriteString(" vs " + s.Vs.Name)
		}
		if s.Path != nil {
			b.WriteString(" to " + strconv.Quote(s.Path.Value))
		}
		writeSettings(&b, s.Settings)
	case *ImputeStmt:
		b.WriteString("impute " + s.Model.Name)
		if s.Columns != nil {
			b.WriteString("[" + exprsString(s.Columns.Items) + "]")
		}
		if s.Path != nil {
			b.WriteString(" to " + strconv.Quote(s.Path.Value))
		}
		writeSettings(&b, s.Settings)
	case *PredictStmt:
		b.WriteString("predict " + s.Model.Name)
		if s.Columns != nil {
			b.WriteString("[" + exprsString(s.Columns.Items) + "]")
		}
		for k, g := range s.Given {
			if k == 0 {
				b.WriteString(" given ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(g.String())
		}
		writeSettings(&b, s.Settings)
	case *ExportStmt:
		b.WriteString("export " + s.Target.String() + " to " + strconv.Quote(s.Path.Value))
	case *ShowStmt:
		b.WriteString("show " + s.Target.String())
	case *CheckStmt:
		b.WriteString("check " + s.Target.String())
		for _, a := range s.Settings {
			b.WriteString(", " + a.Name.Name + " = " + a.Value.String())
		}
	case *CompareStmt:
		b.WriteString("compare ")
		for i, it := range s.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if it.Setting != nil {
				b.WriteString(it.Setting.Name.Name + " = " + it.Setting.Value.String())
			} else {
				b.WriteString(it.Model.Name)
			}
		}
	case *PrintStmt:
		b.WriteString("print " + exprsString(s.Values))
	case *HelpStmt:
		b.WriteString("help")
		if s.Topic != nil {
			b.WriteString(" " + s.Topic.Name)
		}
	case *ClearStmt:
		b.WriteString("clear")
	case *ExprStmt:
		b.WriteString(s.Value.String())
	}
	return b.String()
}

// writeSettings prints ", NAME = VALUE" for each setting.
func writeSettings(b *strings.Builder, settings []*NamedArg) {
	for _, a := range settings {
		b.WriteString(", " + a.Name.Name + " = " + a.Value.String())
	}
}

// ItemString prints one model item in canonical form.
func ItemString(it ModelItem) string {
	switch it := it.(type) {
	case *Assign:
		return it.Name.Name + " = " + it.Value.String()
	case *Tilde:
		return it.Name.Name + " ~ " + it.Dist.String()
	case *Relation:
		return it.Left.Name + " " + it.Relation.Name + " " + it.Right.Name
	}
	return ""
}

func argsString(args []*Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

func exprsString(items []*Expr) string {
	parts := make([]string, len(items))
	for i, e := range items {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// String prints the expression in canonical form.
func (e *Expr) String() string {
	var b strings.Builder
	b.WriteString(e.Head.String())
	for _, t := range e.Tail {
		b.WriteString(" " + t.Op + " " + t.Term.String())
	}
	return b.String()
}

// String prints the product in canonical form.
func (t *Term) String() string {
	var b strings.Builder
	b.WriteString(t.Head.String())
	for _, u := range t.Tail {
		b.WriteString(" " + u.Op + " " + u.Unary.String())
	}
	return b.String()
}

// String prints the unary expression in canonical form.
func (u *Unary) String() string {
	if u.Neg != nil {
		return "-" + u.Neg.String()
	}
	return u.Postfix.String()
}

// String prints the postfix expression in canonical form.
func (p *Postfix) String() string {
	var b strings.Builder
	b.WriteString(p.Primary.String())
	if p.Primary.Number != nil && len(p.Suffixes) > 0 && p.Suffixes[0].Member != nil {
		// "0 .x" written as "0.x" would lex as the number "0." and then x.
		b.WriteByte(' ')
	}
	for _, s := range p.Suffixes {
		if s.Member != nil {
			b.WriteString("." + s.Member.Name)
			if s.Call != nil {
				b.WriteString("(" + argsString(s.Call.Args) + ")")
			}
		} else {
			b.WriteString("[" + exprsString(s.Index.Items) + "]")
		}
	}
	return b.String()
}

// String prints the primary in canonical form.
func (p *Primary) String() string {
	switch {
	case p.Number != nil:
		return p.Number.Text
	case p.Str != nil:
		return strconv.Quote(p.Str.Value)
	case p.Call != nil:
		return p.Call.Func.Name + "(" + argsString(p.Call.Args) + ")"
	case p.Name != nil:
		return p.Name.Name
	case p.Paren != nil:
		return "(" + p.Paren.String() + ")"
	case p.List != nil:
		return "[" + exprsString(p.List.Items) + "]"
	case p.Map != nil:
		parts := make([]string, len(p.Map.Entries))
		for i, e := range p.Map.Entries {
			var key string
			switch {
			case e.All:
				key = "*"
			case e.Keys != nil:
				keys := make([]string, len(e.Keys))
				for k, name := range e.Keys {
					keys[k] = keyString(name)
				}
				key = "[" + strings.Join(keys, ", ") + "]"
			default:
				key = keyString(e.Key)
			}
			parts[i] = key + ": " + e.Value.String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// String prints the argument in canonical form.
func (a *Arg) String() string {
	if a.Name != nil {
		return a.Name.Name + " = " + a.Value.String()
	}
	if a.Rhs != nil {
		return a.Value.String() + " ~ " + a.Rhs.String()
	}
	return a.Value.String()
}

// keyString prints a map key: bare when it is a name, quoted otherwise.
func keyString(key string) string {
	if isName(key) {
		return key
	}
	return strconv.Quote(key)
}

// isName reports whether s lexes as one identifier.
func isName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// String prints a where condition in canonical form: single spaces around
// and, or and the comparisons, its parentheses as written, a column that
// is not a name quoted.
func (c *Cond) String() string {
	parts := make([]string, 0, 1+len(c.Tail))
	for _, a := range append([]*CondAnd{c.Head}, c.Tail...) {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, " or ")
}

func (c *CondAnd) String() string {
	parts := make([]string, 0, 1+len(c.Tail))
	for _, n := range append([]*CondNot{c.Head}, c.Tail...) {
		parts = append(parts, n.String())
	}
	return strings.Join(parts, " and ")
}

func (c *CondNot) String() string {
	switch {
	case c.Not != nil:
		return "not " + c.Not.String()
	case c.Paren != nil:
		return "(" + c.Paren.String() + ")"
	}
	return c.Test.String()
}

func (c *Comparison) String() string {
	col := c.ColumnName()
	if c.ColumnStr != nil || !IsName(col) {
		col = strconv.Quote(col)
	}
	if c.In != nil {
		items := make([]string, len(c.In.Items))
		for i, it := range c.In.Items {
			items[i] = it.String()
		}
		return col + " in [" + strings.Join(items, ", ") + "]"
	}
	return col + " " + c.Op + " " + c.Value.String()
}

// String prints COL = VALUE, a column that is not a name quoted.
func (g *GivenValue) String() string {
	col := g.ColumnName()
	if g.ColumnStr != nil || !IsName(col) {
		col = strconv.Quote(col)
	}
	return col + " = " + g.Value.String()
}
