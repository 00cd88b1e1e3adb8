package dsl

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// participle says what it expected as the rest of a grammar rule, as in
// `Ident ("with" Method)? ("," NamedArg)*` after fit: rule names, <sep>,
// groups and repetition marks. expectation turns that into words: what may
// come next (the first element of the rule's rest), named after where the
// error is — the statement it is in and the token before it — and, where
// one helps, an example of the statement written out.

// expectation is what a syntax error says was expected, in a user's words.
type expectation struct {
	what    string // "the name of a model to fit"
	example string // "fit m, iter = 2000", or empty
}

// grammarSpot is where in a statement an error is.
type grammarSpot struct {
	keyword string       // the statement's keyword, or "" (an expression statement, or none)
	prev    *lexer.Token // the token before the error's, or nil
	nested  bool         // inside ( ), [ ] or a map's { }
	inModel bool         // directly inside a model's { }
}

// spotOf finds where the token at offset is.
func spotOf(toks []lexer.Token, offset int) grammarSpot {
	var (
		sp    grammarSpot
		open  []byte // open brackets; 'm' for a model's brace
		start = true // the next token starts a statement
	)
	for i := range toks {
		t := &toks[i]
		if t.Pos.Offset >= offset || t.Type == tokEOF {
			break
		}
		if len(open) == 0 && start {
			sp.keyword = ""
			if t.Type == tokIdent && isKeyword(t.Value) {
				sp.keyword = t.Value
			}
		}
		start = t.Type == tokSep
		if t.Type == tokPunct {
			switch t.Value {
			case "(", "[":
				open = append(open, t.Value[0])
			case "{":
				if len(open) == 0 && sp.keyword == "model" {
					open = append(open, 'm')
				} else {
					open = append(open, '{')
				}
			case ")", "]", "}":
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			}
		}
		sp.prev = t
	}
	sp.inModel = len(open) == 1 && open[0] == 'm'
	sp.nested = len(open) > 0 && !sp.inModel
	return sp
}

// settingExamples is an example setting of each statement that takes settings.
var settingExamples = map[string]string{
	"fit":     "fit m, iter = 2000, chains = 4",
	"explain": "explain fit m, iter = 2000",
	"extend":  "extend m, iter = 1000",
	"summary": "summary m.C, prob = 0.8",
	"impute":  `impute m, prob = 0.5`,
	"predict": "predict m[degree] given income = 5, prob = 0.8",
	"check":   "check m, draws = 400",
	"compare": "compare m1, m2, folds = 5",
}

// expect describes participle's expected text at spot sp.
func expect(grammar string, sp grammarSpot) expectation {
	head := firstElement(grammar)
	prev := ""
	if sp.prev != nil && sp.prev.Type != tokSep {
		prev = sp.prev.Value
	}
	afterKeyword := !sp.nested && !sp.inModel && prev != "" && prev == sp.keyword &&
		sp.prev.Type == tokIdent
	kw := sp.keyword
	if sp.nested || sp.inModel {
		kw = ""
	}
	switch head {
	case `"{"`:
		if kw == "model" {
			return expectation{`"{" and the model's statements`, "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }"}
		}
	case `"="`:
		switch kw {
		case "data":
			return expectation{`"=" and the data`, `data gss = load("gss.csv")`}
		case "":
			return expectation{`"="`, ""}
		}
		if kw == "predict" {
			return expectation{`"=" and a value`, "predict m[degree] given income = 5, pdegree = 3"}
		}
		return expectation{`"=" and a value`, settingExamples[kw]}
	case `"to"`:
		if kw == "export" {
			return expectation{`"to" and a file name`, `export m to "draws.csv"`}
		}
	case "(FitStmt | Ident)":
		return expectation{"the name of a model to explain", "explain m"}
	case "Ident", "<ident>":
		switch {
		case afterKeyword && kw == "data":
			return expectation{"the data set's name", `data gss = load("gss.csv")`}
		case afterKeyword && kw == "model":
			return expectation{"the model's name", "model m { ... }"}
		case afterKeyword && kw == "fit", kw == "explain" && prev == "fit":
			return expectation{"the name of a model to fit", "fit m, iter = 2000"}
		case afterKeyword && kw == "extend":
			return expectation{"the name of a fitted model", "extend m, iter = 1000"}
		case afterKeyword && kw == "impute":
			return expectation{"the name of a fitted model", `impute m to "cells.csv"`}
		case afterKeyword && kw == "predict":
			return expectation{"the name of a fitted model", "predict m[degree] given income = 5"}
		case afterKeyword && kw == "export":
			return expectation{"the name of a fitted model", `export m to "draws.csv"`}
		case afterKeyword && kw == "plot":
			return expectation{"the kind of plot", "plot trace m.C[1, 2]"}
		case afterKeyword && kw == "help":
			return expectation{"a word of the language", "help fit"}
		case prev == "vs" && kw == "plot":
			return expectation{"a data set's name after vs", "plot rmse m vs sim"}
		case prev == ".":
			return expectation{"a name after the dot", "m.C"}
		}
		return expectation{"a name", ""}
	case "Expr", "Term", "Unary", "Postfix", "Primary":
		switch {
		case afterKeyword && kw == "summary":
			return expectation{"what to summarise", "summary m.C"}
		case afterKeyword && kw == "check":
			return expectation{"what to check", "check m"}
		case afterKeyword && kw == "show":
			return expectation{"what to show", "show gss"}
		case afterKeyword && kw == "print":
			return expectation{"a value to print", `print "C12 =", m.C[1, 2]`}
		case kw == "print" && prev == ",":
			return expectation{"another value to print", `print "C12 =", m.C[1, 2]`}
		case kw == "plot" && sp.prev != nil && sp.prev.Type == tokIdent && prev != "vs":
			return expectation{"what to plot", "plot trace m.C[1, 2]"}
		case kw == "data" && prev == "=":
			return expectation{"the data: load(...) or simulate(...)", `data gss = load("gss.csv")`}
		case prev == "=" && !sp.nested && !sp.inModel && settingExamples[kw] != "":
			return expectation{"the setting's value", settingExamples[kw]}
		case sp.inModel && prev == "~":
			return expectation{"a distribution", "Z ~ GaussianCopula(C)"}
		}
		return expectation{"an expression", ""}
	case "NamedArg":
		if kw == "predict" {
			return expectation{"another column and its value, or a setting", "predict m[degree] given income = 5, pdegree = 3, prob = 0.8"}
		}
		return expectation{"a setting, name = value", settingExamples[kw]}
	case "GivenValue":
		return expectation{"a column and its value, COL = VALUE", "predict m[degree] given income = 5, pdegree = 3"}
	case "CompareItem":
		if afterKeyword {
			return expectation{"the names of the models to compare", settingExamples["compare"]}
		}
		return expectation{"another model's name or a setting", settingExamples["compare"]}
	case "Method":
		return expectation{"a sampler after with", "fit m with hmc"}
	case "StringLit", "<string>":
		switch {
		case prev == "to" && kw == "impute":
			return expectation{"a file name in double quotes", `impute m to "cells.csv"`}
		case prev == "to" && kw == "summary":
			return expectation{"a file name in double quotes", `summary m.C to "C.tex"`}
		case prev == "to" && kw == "plot":
			return expectation{"a file name in double quotes", `plot heatmap m.C to "C.pdf"`}
		case prev == "to":
			return expectation{"a file name in double quotes", `export m to "draws.csv"`}
		}
		return expectation{"a string in double quotes", ""}
	case "Arg":
		return expectation{"an argument", ""}
	case "MapEntry":
		return expectation{"a key: value entry", `{sex: ["m", "f"]}`}
	case "ModelItem":
		return expectation{"a model statement", "Z ~ GaussianCopula(C)"}
	case "Stmt":
		return expectation{"a statement", ""}
	}
	if isQuotedToken(head) {
		return expectation{head, ""}
	}
	// A rule this function does not know yet: say nothing rather than
	// show the grammar (TestErrorsNeverShowTheGrammar looks for these).
	return expectation{}
}

// firstElement returns the first element of a rule's text in participle's
// EBNF: a quoted token, a rule or token name, or a bracketed group with
// its repetition mark.
func firstElement(rule string) string {
	rule = strings.TrimSpace(rule)
	if rule == "" {
		return ""
	}
	switch rule[0] {
	case '"':
		if end := strings.IndexByte(rule[1:], '"'); end >= 0 {
			return rule[:end+2]
		}
	case '(':
		depth := 0
		for i := 0; i < len(rule); i++ {
			switch rule[i] {
			case '"':
				if end := strings.IndexByte(rule[i+1:], '"'); end >= 0 {
					i += end + 1
				}
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					j := i + 1
					for j < len(rule) && strings.IndexByte("?*+!", rule[j]) >= 0 {
						j++
					}
					return rule[:j]
				}
			}
		}
	}
	if i := strings.IndexByte(rule, ' '); i >= 0 {
		return rule[:i]
	}
	return rule
}

// isQuotedToken reports whether s is a quoted token of the grammar, as
// in ")" or "vs".
func isQuotedToken(s string) bool {
	return len(s) >= 3 && s[0] == '"' && s[len(s)-1] == '"' && !strings.ContainsAny(s[1:len(s)-1], `" `)
}
