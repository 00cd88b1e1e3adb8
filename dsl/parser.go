package dsl

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// lookahead is participle's lookahead: a branch may fail after one token and
// still be backtracked (a named argument n = 5 against an expression n + 5,
// Y = ... against Y ordinal Z, a call against a name). Any deeper failure is
// reported where it happened, which is what makes the error positions
// useful. The golden tests pin them.
const lookahead = 1

// maxUnclosedParse is the most tokens (or, for a whole source, bytes) of a
// statement whose brackets are never closed that are given to the parser,
// for its more precise message; longer ones get unclosedError's at once.
const maxUnclosedParse = 4096

// maxErrors bounds the number of syntax errors reported for one source.
const maxErrors = 10

// statements lists the top-level statements of the language, in the order
// of the language reference. It is the one place where a statement is
// added: define its node type (its grammar starts with its keyword, as
// `parser:"'data' @@ '='"` does for DataStmt) and list it here. The
// parser's union, StatementKeywords, Keyword and, through them,
// compiler.Keywords and the kernel's completion all follow from this list;
// the compiler (Check) and the session then give the statement a meaning.
func statements() []Stmt {
	return []Stmt{
		&DataStmt{}, &ModelStmt{}, &ExplainStmt{}, &FitStmt{}, &ExtendStmt{}, &SummaryStmt{},
		&PlotStmt{}, &ImputeStmt{}, &PredictStmt{}, &ExportStmt{}, &ShowStmt{},
		&CheckStmt{}, &CompareStmt{}, &PrintStmt{}, &HelpStmt{}, &ClearStmt{},
	}
}

// parser is built once; a participle parser is immutable after Build and
// safe for concurrent use.
var parser = participle.MustBuild[File](
	participle.Lexer(definition{}),
	participle.Union[Stmt](append(statements(), &ExprStmt{})...), // last: any other line is an expression
	participle.Union[ModelItem](&Assign{}, &Tilde{}, &Relation{}),
	participle.UseLookahead(lookahead),
)

// statementKeywords are the keywords of statements(), in order; read only.
var statementKeywords = func() []string {
	var out []string
	for _, s := range statements() {
		out = append(out, Keyword(s))
	}
	return out
}()

// StatementKeywords returns the words that begin a top-level statement, in
// the order of the language reference.
func StatementKeywords() []string { return slices.Clone(statementKeywords) }

// Keyword returns the word that begins a statement of s's type: the first
// literal of its grammar.
func Keyword(s Stmt) string {
	t := reflect.TypeOf(s).Elem()
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("parser")
		if !ok {
			continue
		}
		if rest, found := strings.CutPrefix(strings.TrimPrefix(tag, "@"), "'"); found {
			if kw, _, closed := strings.Cut(rest, "'"); closed {
				return kw
			}
		}
		break
	}
	panic(fmt.Sprintf("dsl: the grammar of %s does not start with its keyword", t.Name()))
}

// Parse parses a script or notebook cell. filename is used in positions
// (it may be empty). On failure the error is an ErrorList with one error per
// statement that failed to parse, or each lexical error of a statement
// (up to ten in all), and the returned File holds the
// statements that did parse, so that tools can still use them; on success
// the error is nil.
func Parse(filename string, src []byte) (*File, error) {
	if len(src) > maxUnclosedParse {
		// Refuse at once, before tokenising, what cannot parse and would
		// cost the parser a lot: brackets nested too deeply, and a long
		// statement whose brackets are never closed.
		st := scanBrackets(filename, src)
		if st.tooDeep != nil {
			return &File{}, ErrorList{st.tooDeep}
		}
		if len(st.open) > 0 && !st.openString && len(src)-st.open[0].pos.Offset > maxUnclosedParse {
			b := st.open[len(st.open)-1]
			return &File{}, ErrorList{unclosed(b, st.end)}
		}
	}
	s := scanRange(src, Position{Filename: filename, Line: 1, Column: 1}, len(src), keepUntilError)
	if s.err == nil && (len(s.open) == 0 || len(s.tokens) <= maxUnclosedParse) {
		f, err := parseTokens(s.tokens)
		if err == nil {
			return f, nil
		}
	}
	// Parse each top-level statement on its own so that one mistake does
	// not hide the next. Each is scanned from its own start position, so
	// positions stay those of the whole source and the work stays linear.
	var (
		errs  ErrorList
		stmts []Stmt
	)
	pos := Position{Filename: filename, Line: 1, Column: 1}
	ends := append(s.stmtEnds, len(src))
	for _, end := range ends {
		if end < pos.Offset {
			continue
		}
		if len(bytes.TrimSpace(src[pos.Offset:end])) > 0 {
			cs := scanRange(src, pos, end, keepUntilError)
			if end < len(src) {
				cs.cut = src[end]
				cs.after = firstWord(src[end+1:])
			}
			if cs.err != nil {
				errs = append(errs, cs.errs...)
			} else if len(cs.open) > 0 && len(cs.tokens) > maxUnclosedParse {
				// The parser would parse all of it only to fail at its end
				// (seconds for a megabyte of model block): say so at once.
				errs = append(errs, unclosedError(cs))
			} else if cf, err := parseTokens(cs.tokens); err != nil {
				if !braceOnNextLine(errs, cs.tokens) {
					errs = append(errs, convertError(err, cs))
				}
			} else {
				stmts = append(stmts, cf.Stmts...)
			}
			if len(errs) >= maxErrors {
				errs = errs[:maxErrors]
				break
			}
		}
		// Move past the chunk and its separator.
		next := min(end+1, len(src))
		advanceOver(&pos, src[pos.Offset:next])
	}
	if len(errs) == 0 {
		// Every statement parses alone although the whole does not; this
		// should not happen, but report the whole's error rather than none.
		if s.err != nil {
			errs = append(errs, s.errs...)
		} else {
			_, err := parseTokens(s.tokens)
			errs = append(errs, convertError(err, s))
		}
	}
	errs.Sort()
	file := &File{Stmts: stmts}
	if len(stmts) > 0 {
		file.Pos, _ = stmts[0].Span()
		_, file.EndPos = stmts[len(stmts)-1].Span()
	}
	return file, errs
}

// unclosedError reports the end of a source whose last open bracket is
// never closed.
func unclosedError(s *scanResult) *Error {
	return unclosed(s.open[len(s.open)-1], s.tokens[len(s.tokens)-1].Pos)
}

func unclosed(b bracket, end Position) *Error {
	closer := map[byte]string{'(': ")", '[': "]", '{': "}"}[b.char]
	return &Error{
		Pos:  end,
		Msg:  fmt.Sprintf("unexpected end of input (expected %q)", closer),
		Hint: fmt.Sprintf("the %q at %d:%d is never closed", string(b.char), b.pos.Line, b.pos.Column),
	}
}

// parseTokens runs the participle parser on scanned tokens.
func parseTokens(tokens []lexer.Token) (*File, error) {
	peek, err := lexer.Upgrade(&tokenStream{tokens: tokens})
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFromLexer(peek)
	if f != nil {
		unquoteStrings(reflect.ValueOf(f))
	}
	return f, err
}

// unquoteStrings replaces the quoted text of every string under v (string
// literals and map keys, which the lexer leaves quoted, see scan) with its
// value.
func unquoteStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		switch n := v.Interface().(type) {
		case *StringLit:
			n.Value = unquoted(n.Value)
			return
		case *MapEntry: // a key is a name or a string
			n.Key = unquoted(n.Key)
			for i := range n.Keys {
				n.Keys[i] = unquoted(n.Keys[i])
			}
		}
		unquoteStrings(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				unquoteStrings(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			unquoteStrings(v.Index(i))
		}
	}
}

// unquoted returns the value of a string token's text, or the text itself
// when it is not a valid string (a name, or bad escapes the lexer reported).
func unquoted(text string) string {
	if !strings.HasPrefix(text, `"`) {
		return text
	}
	if u, err := strconv.Unquote(text); err == nil {
		return u
	}
	return text
}

// convertError turns a participle or lexer error into an *Error with a
// readable message and, where one helps, a hint. s is the scan of the text
// that was parsed.
func convertError(err error, s *scanResult) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		return unexpectedToken(ute, s)
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		return &Error{Pos: perr.Position(), Msg: perr.Message()}
	}
	return &Error{Msg: err.Error()}
}

// unexpectedToken rewrites participle's "unexpected token" error and finds a hint.
func unexpectedToken(ute *participle.UnexpectedTokenError, s *scanResult) *Error {
	tok := ute.Unexpected
	msg := "unexpected " + s.describe(tok)
	var expected expectation
	if _, after, ok := strings.Cut(ute.Message(), " (expected "); ok {
		expected = expect(strings.TrimSuffix(after, ")"), spotOf(s.tokens, tok.Pos.Offset))
		if expected.what != "" {
			msg += " (expected " + expected.what + ")"
		}
	}
	e := &Error{Pos: tok.Pos, Msg: msg}
	prev := previousToken(s.tokens, tok.Pos.Offset)
	next := nextToken(s.tokens, tok.Pos.Offset)
	atStmtStart := prev == nil || prev.Type == tokSep || (prev.Type == tokPunct && prev.Value == "{")
	if word, ok := strayWordBefore(s.tokens, tok, prev); ok {
		// "fitt m": the misspelt keyword parsed as an expression statement
		// and the error fell on the next token; report the word itself.
		tok, prev, atStmtStart = word, nil, true
		e = &Error{Pos: tok.Pos, Msg: "unexpected " + s.describe(tok)}
		expected = expectation{}
	}
	if tok.Type == tokEOF && prev != nil && joinsLines(*prev) && tok.Pos.Line > prev.Pos.Line {
		// "fit m, iter = 10," or "predict m[y] given" at the end: the
		// caret goes after the token that joined the next line, on its
		// line, not under the empty line below it.
		e.Pos = prev.Pos
		e.Pos.Offset += len(prev.Value)
		e.Pos.Column += utf8.RuneCountInString(prev.Value)
		e.Msg = strings.Replace(e.Msg, "unexpected "+s.describe(tok), "unexpected "+s.describe(tok)+fmt.Sprintf(" after %q", prev.Value), 1)
		if prev.Value == "," {
			e.Hint = "a line that ends with a comma goes on to the next; delete the comma if the statement ends here"
			return e
		}
	}
	if hint := habitHint(s, tok, prev, next); hint != "" {
		e.Hint = hint
		return e
	}
	if hint := predictHint(s.tokens, tok, prev); hint != "" {
		e.Hint = hint
		return e
	}
	switch last, continued := continuedLine(s.tokens, tok); {
	case continued && last.Value == ",":
		e.Hint = fmt.Sprintf("line %d ends with a comma (at %d:%d), so the statement goes on to this line; delete the comma if the statement ends there",
			last.Pos.Line, last.Pos.Line, last.Pos.Column)
	case continued && last.Type == tokPunct && strings.Contains("+-*/", last.Value):
		e.Hint = fmt.Sprintf("line %d ends with %s (at %d:%d), so the expression goes on to this line, as in R; finish it on line %d, or delete the %s",
			last.Pos.Line, last.Value, last.Pos.Line, last.Pos.Column, last.Pos.Line, last.Value)
	case continued:
		e.Hint = fmt.Sprintf("line %d ends with %s (at %d:%d), so the statement goes on to this line; finish it on line %d",
			last.Pos.Line, last.Value, last.Pos.Line, last.Pos.Column, last.Pos.Line)
	case tok.Type == tokEOF && len(s.open) > 0:
		b := s.open[len(s.open)-1]
		e.Hint = fmt.Sprintf("the %q at %d:%d is never closed", string(b.char), b.pos.Line, b.pos.Column)
	case tok.Type == tokIdent && atStmtStart && !insideModel(s.tokens, tok.Pos.Offset) && slices.Contains(importWords, tok.Value):
		// import numpy, library(x): copulang has nothing to import, and
		// the nearest keyword (export) would mislead.
		e.Hint = "copulang needs nothing imported or loaded: its statements are built in (help lists them)"
	case tok.Type == tokIdent && atStmtStart && !insideModel(s.tokens, tok.Pos.Offset):
		if near := Nearest(tok.Value, statementKeywords); near != "" {
			e.Hint = "did you mean " + near + "?"
		} else {
			e.Hint = "a statement starts with one of: " + strings.Join(statementKeywords, ", ")
		}
	case tok.Type == tokIdent && prev != nil && prev.Type != tokSep && tok.Pos.Line == prev.Pos.Line &&
		isKeyword(tok.Value) && !insideModel(s.tokens, tok.Pos.Offset):
		e.Hint = "put each statement on its own line or separate statements with ';'"
	case tok.Type == tokIdent && prev != nil && prev.Type != tokSep && tok.Pos.Line == prev.Pos.Line &&
		insideModel(s.tokens, tok.Pos.Offset) && next.Type == tokPunct && (next.Value == "=" || next.Value == "~"):
		e.Hint = "put each model statement on its own line or separate them with ';'"
	case tok.Type == tokIdent && next.Type == tokPunct && next.Value == "=" && prev != nil && prev.Type != tokSep:
		e.Hint = "separate settings and arguments with ','"
	case tok.Type == tokPunct && tok.Value == "~" && !insideModel(s.tokens, tok.Pos.Offset) && next.Type != tokEOF &&
		!startsExpr(next):
		// m.regress(Y1 ~ .): the formula's right side failed, so
		// participle backed out to the "~"; the mistake is after it.
		e = &Error{Pos: next.Pos, Msg: "unexpected " + s.describe(next) + " after ~ (expected an expression)",
			Hint: "a formula names its predictors, as in m.regress(Y1 ~ Y2 + Y3)"}
		if next.Type == tokPunct && next.Value == "." {
			e.Hint += "; there is no . for all the other columns"
		}
	case tok.Type == tokPunct && tok.Value == "/" && next.Type == tokPunct && (next.Value == "/" || next.Value == "*") &&
		next.Pos.Offset == tok.Pos.Offset+1,
		tok.Type == tokPunct && (tok.Value == "/" || tok.Value == "*") && prev != nil && prev.Type == tokPunct && prev.Value == "/" &&
			tok.Pos.Offset == prev.Pos.Offset+1:
		// // and /* */, as C, Java and JavaScript write comments.
		e.Hint = "comments start with #"
	case tok.Type == tokPunct && tok.Value == "=" && prev != nil && prev.Type == tokIdent && prev.Value == "method":
		// fit m with method = "hmc"
		e.Hint = "name the sampler alone after with: fit m with hmc"
	case tok.Type == tokPunct && tok.Value == "=" && prev != nil && (prev.Type == tokIdent || prev.Type == tokString) && inWhere(s.tokens, tok.Pos.Offset):
		// data d = gss where age = 50, or age => 50
		if next.Type == tokPunct && (next.Value == ">" || next.Value == "<") {
			e.Hint = fmt.Sprintf("write %s= for at least or at most, as in where %s %s= 50", next.Value, prev.Value, next.Value)
		} else {
			e.Hint = fmt.Sprintf("a where condition compares with ==, as in where %s == %s", prev.Value, next.Value)
		}
	case prev != nil && prev.Type == tokIdent && prev.Value == "in" && inWhere(s.tokens, tok.Pos.Offset):
		// data d = gss where degree in 1, 2
		e.Hint = "list the values in brackets, as in where degree in [1, 2]"
	case tok.Type == tokEOF && prev != nil && endsWithConnective([]lexer.Token{*prev}) && inWhere(s.tokens, tok.Pos.Offset):
		// data d = gss where age >= 50 and
		if prev.Type == tokPunct {
			e.Hint = fmt.Sprintf("a number or label follows %s, as in where age %s 50", prev.Value, prev.Value)
		} else {
			e.Hint = fmt.Sprintf("a test follows %s, as in where age >= 50 and degree != 0", prev.Value)
		}
	case tok.Type == tokPunct && strings.ContainsAny(tok.Value, "<>!") || tok.Value == "==" && tok.Type == tokPunct:
		// print 1 != 2, summary m.C == 1
		e.Hint = "comparisons (== != < <= > >=) are made only in a data statement's where, as in data older = gss where age >= 50"
	case (tok.Type == tokSep && tok.Value == "\n" || tok.Type == tokEOF && s.cut == '\n' && s.after != "" && !isKeyword(s.after)) && expected.what != "":
		// The statement may go on below; if nothing or a statement
		// follows, the example below says more.
		e.Hint = "a statement ends at the end of its line, unless the line ends with a comma or a ( or [ is still open"
	}
	if h := indexHint(s.tokens, tok, prev); h != "" && e.Hint == "" {
		e.Hint = h
	}
	if kw, ok := parenAfterKeyword(s.tokens, tok); ok && e.Hint == "" {
		// fit(m), print(a, b), plot(trace, m.C[1, 2]): a statement is not
		// a function call.
		e.Hint = kw + " is a statement, not a function: it takes no parentheses"
		if expected.example != "" {
			e.Hint += "; for example: " + expected.example
		} else if ex := statementExamples[kw]; ex != "" {
			e.Hint += "; for example: " + ex
		}
	}
	if e.Hint == "" && expected.example != "" {
		e.Hint = "for example: " + expected.example
	}
	return e
}

// importWords are the words that import or load a library in the languages
// students come from.
var importWords = []string{"import", "library", "require", "using", "source", "from", "include"}

// statementExamples is an example of each statement whose parenthesised
// misuse the grammar cannot name an example for.
var statementExamples = map[string]string{
	"print":   `print "C12 =", m.C[1, 2]`,
	"show":    "show gss",
	"summary": "summary m.C",
	"plot":    "plot trace m.C[1, 2]",
	"check":   "check m",
	"compare": "compare m1, m2",
	"fit":     "fit m, iter = 2000",
	"explain": "explain m",
	"extend":  "extend m, iter = 1000",
	"impute":  "impute m",
	"predict": "predict m[degree] given income = 5",
	"export":  `export m to "draws.csv"`,
}

// assignmentHint says how copulang names what an assignment NAME = ...
// would: data and models have their keywords, a fit is kept in its model,
// and there are no variables.
func assignmentHint(name string, value lexer.Token) string {
	switch {
	case value.Type == tokIdent && (value.Value == "load" || value.Value == "simulate"):
		return "data is named with the data keyword: data " + name + " = " + value.Value + "(...)"
	case value.Type == tokIdent && (value.Value == "fit" || value.Value == "extend"):
		return "a fit is kept in the model it fits: write " + value.Value + " MODEL (as in fit m, iter = 2000), then summary m.C"
	case value.Type == tokIdent && value.Value == "model":
		return "a model is named after its keyword: model " + name + " { ... }"
	}
	return "copulang has no variables: data NAME = load(...) or simulate(...) names data, model NAME { ... } a model, and a number is written where it is used"
}

// parenAfterKeyword reports the statement keyword that tok, a "(", follows
// at once (fit(m)), or that the "(" around tok, a ",", follows (print(a, b)).
func parenAfterKeyword(toks []lexer.Token, tok lexer.Token) (string, bool) {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 {
		return "", false
	}
	if tok.Type != tokPunct || (tok.Value != "(" && tok.Value != ",") {
		return "", false
	}
	open := i // the "(" itself when tok is one
	if tok.Value == "," {
		open = openBracket(toks, i)
		if open < 0 || toks[open].Value != "(" {
			return "", false
		}
	}
	if open == 0 {
		return "", false
	}
	kw := toks[open-1]
	if kw.Type != tokIdent || !isKeyword(kw.Value) || kw.Pos.Offset+len(kw.Value) != toks[open].Pos.Offset {
		return "", false
	}
	if before := previousToken(toks, kw.Pos.Offset); before != nil && before.Type != tokSep {
		return "", false
	}
	return kw.Value, true
}

// continuedLine reports the token that ends the line before tok's when
// it joined a statement keyword, the first token of tok's line, to the
// statement before: "fit m, iter = 20," (or "summary a.C -", or "predict
// m[y] given") followed by "summary m.C" is one statement, and its error
// falls on the summary line.
func continuedLine(toks []lexer.Token, tok lexer.Token) (lexer.Token, bool) {
	if tok.Type == tokEOF {
		return lexer.Token{}, false
	}
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 {
		return lexer.Token{}, false
	}
	for i > 0 && toks[i-1].Pos.Line == tok.Pos.Line {
		i--
	}
	first := toks[i]
	if i == 0 || first.Type != tokIdent || !isKeyword(first.Value) {
		return lexer.Token{}, false
	}
	// The lexer joins a line to the next only after a comma, + - * /, a
	// where condition's connective or predict's given: a token of an
	// earlier line right before this one's first is such a token.
	last := toks[i-1]
	return last, joinsLines(last) && last.Pos.Line < first.Pos.Line
}

// joinsLines reports whether a line that ends with tok goes on to the
// next, as the lexer reads it: a comma, + - * /, a comparison, a where
// condition's connective or predict's given.
func joinsLines(tok lexer.Token) bool {
	return tok.Type == tokPunct && slices.Contains([]string{",", "+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="}, tok.Value) ||
		tok.Type == tokIdent && slices.Contains([]string{"given", "where", "and", "or", "not"}, tok.Value)
}

// firstWord returns the name src starts with, past white space, blank
// lines and comments; its first byte if it starts otherwise; "" if empty.
func firstWord(src []byte) string {
	for {
		src = bytes.TrimLeft(src, " \t\r\n\f\v")
		if len(src) == 0 || src[0] != '#' {
			break
		}
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			src = src[i:]
		} else {
			src = nil
		}
	}
	n := min(len(src), 1)
	for n < len(src) && isLetter(src[0]) && (isLetter(src[n]) || isDigit(src[n])) {
		n++
	}
	return string(src[:n])
}

// startsExpr reports whether tok can begin an expression.
func startsExpr(tok lexer.Token) bool {
	switch tok.Type {
	case tokIdent, tokNumber, tokString:
		return true
	case tokPunct:
		return tok.Value == "(" || tok.Value == "[" || tok.Value == "{" || tok.Value == "-"
	}
	return false
}

// strayWordBefore reports the identifier that begins a top-level statement
// when tok, the unexpected token, follows it on the same line: a line such
// as "fitt m" parses its first word as an expression statement, so the
// error falls on the second.
func strayWordBefore(toks []lexer.Token, tok lexer.Token, prev *lexer.Token) (lexer.Token, bool) {
	if prev == nil || prev.Type != tokIdent || isKeyword(prev.Value) || tok.Type == tokSep || tok.Type == tokEOF || tok.Pos.Line != prev.Pos.Line {
		return lexer.Token{}, false
	}
	if tok.Type == tokPunct && tok.Value != "(" && tok.Value != "{" {
		return lexer.Token{}, false // "x =", "m.C": a genuine expression or assignment error
	}
	before := previousToken(toks, prev.Pos.Offset)
	if before != nil && before.Type != tokSep {
		return lexer.Token{}, false
	}
	if insideModel(toks, prev.Pos.Offset) {
		return lexer.Token{}, false
	}
	return *prev, true
}

func isKeyword(w string) bool { return slices.Contains(statementKeywords, w) }

// describe names a token of s for a message.
func (s *scanResult) describe(tok lexer.Token) string {
	switch {
	case tok.Type == tokEOF && s.cut == '\n', tok.Type == tokSep && tok.Value == "\n":
		return "end of line"
	case tok.Type == tokEOF && s.cut == ';':
		return `";"`
	case tok.Type == tokEOF:
		return "end of input"
	}
	if tok.Type == tokString {
		return tok.Value // as written, quotes and all
	}
	return fmt.Sprintf("%q", tok.Value)
}

// inWhere reports whether the token at offset is in a where condition:
// a where comes before it in its statement, outside brackets.
func inWhere(toks []lexer.Token, offset int) bool {
	depth := 0
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		if t.Pos.Offset >= offset {
			continue
		}
		switch {
		case t.Type == tokSep:
			return false
		case t.Type == tokPunct && (t.Value == ")" || t.Value == "]"):
			depth++
		case t.Type == tokPunct && (t.Value == "(" || t.Value == "["):
			depth--
		case t.Type == tokIdent && t.Value == "where" && depth == 0:
			return true
		}
	}
	return false
}

// previousToken returns the last token that starts before offset, or nil.
func previousToken(toks []lexer.Token, offset int) *lexer.Token {
	var prev *lexer.Token
	for i := range toks {
		if toks[i].Pos.Offset >= offset || toks[i].Type == tokEOF {
			break
		}
		prev = &toks[i]
	}
	return prev
}

// insideModel reports whether offset lies inside an open brace, i.e. within
// a model block, where items rather than statements start lines.
func insideModel(toks []lexer.Token, offset int) bool {
	depth := 0
	for _, t := range toks {
		if t.Pos.Offset >= offset || t.Type == tokEOF {
			break
		}
		if t.Type == tokPunct {
			switch t.Value {
			case "{":
				depth++
			case "}":
				depth = max(depth-1, 0)
			}
		}
	}
	return depth > 0
}

// nextToken returns the token after the one at offset (EOF if none).
func nextToken(toks []lexer.Token, offset int) lexer.Token {
	for i := range toks {
		if toks[i].Pos.Offset > offset || toks[i].Type == tokEOF {
			return toks[i]
		}
	}
	return toks[len(toks)-1]
}

// habitHint is the hint for a syntax error that a habit of another
// language explains: R's and Python's calls of statements, assignments to
// names, lavaan's =~, a model's items separated by commas, a bracket left
// open before the closer of another, a model whose } is missing; "" when
// none does.
func habitHint(s *scanResult, tok lexer.Token, prev *lexer.Token, next lexer.Token) string {
	inModel := insideModel(s.tokens, tok.Pos.Offset)
	is := func(t lexer.Token, punct string) bool { return t.Type == tokPunct && t.Value == punct }
	prevIs := func(punct string) bool { return prev != nil && is(*prev, punct) }
	before := (*lexer.Token)(nil)
	if prev != nil {
		before = previousToken(s.tokens, prev.Pos.Offset)
	}
	startsStmt := func(t *lexer.Token) bool { return t == nil || t.Type == tokSep || is(*t, "{") }
	switch {
	case is(tok, ")") || is(tok, "]") || is(tok, "}"):
		// LKJ(eta = 2 on one line and } on the next: the ( is open.
		if b, ok := unmatchedOpener(s.tokens, tok.Pos.Offset); ok && closerOf(b.Value) != tok.Value {
			return fmt.Sprintf("the %q at %d:%d is never closed", b.Value, b.Pos.Line, b.Pos.Column)
		}
	case inModel:
		// a statement inside a model's braces, on a line of its own:
		// the model's } is missing.
		if b, ok := modelBrace(s.tokens, tok.Pos.Offset); ok && modelLeftOpen(s, tok, b) {
			return fmt.Sprintf("the model's { at %d:%d is never closed: end the model with }", b.Pos.Line, b.Pos.Column)
		}
	}
	if word, ok := stanDeclaration(s.tokens, tok); ok {
		// real<lower=0> x; vector[5] y; corr_matrix[p] C;
		return stanHint(word)
	}
	opener, nested := unmatchedOpener(s.tokens, tok.Pos.Offset)
	inBrackets := nested && (opener.Value == "[" || opener.Value == "(")
	if is(tok, ",") && nested && opener.Value == "(" {
		if before := previousToken(s.tokens, opener.Pos.Offset); before != nil && is(*before, "[") {
			// m.C[(a, b)]: Python's tuple as a key.
			return "an index is not a tuple: write the columns in the brackets alone, as in " + indexedText(s.tokens, *before) + "[" + itemsText(s.tokens, opener) + "]"
		}
	}
	if h, ok := emptyRowIndex(s.tokens, tok); ok {
		// R's gss[, c("a", "b")] and gss[, 2]: rows, then columns.
		return h
	}
	switch {
	case tok.Type == tokIdent && prev != nil && prev.Type == tokIdent && inBrackets && tok.Pos.Line == prev.Pos.Line:
		// gss[Income level], a header with a space, or m.C[Y1 Y2], two
		// indices without their comma.
		return fmt.Sprintf("separate two items with ',', as in [%s, %s]; a name with spaces is written as a string: \"%s %s\"", prev.Value, tok.Value, prev.Value, tok.Value)
	case is(tok, ":") && nested && opener.Value == "[":
		// R's gss[income:age], Python's m.C[1:3].
		return "there are no ranges: list the columns, as in gss[income, degree, age]"
	case is(tok, ":") && nested && opener.Value == "(":
		// m.regress(income ~ degree + age + degree:age)
		return "a formula joins columns with +, as in m.regress(income ~ degree + age); it has no interactions"
	case is(tok, ",") && keywordOf(s.tokens, tok.Pos.Offset) == "plot" && !nested,
		!is(tok, "=") && prev != nil && prev.Type == tokIdent && before != nil && is(*before, ",") &&
			keywordOf(s.tokens, tok.Pos.Offset) == "plot" && !nested:
		// plot trace m.C[1, 2], m.C[1, 3]; a plot's comma is followed by
		// a setting (plot graph m.partial, prob = 0.95), so the parser
		// stops at the second target's dot.
		return "a plot statement draws one figure: write one plot statement for each (after a comma come settings, as in plot graph m.partial, prob = 0.95)"
	case is(tok, "=") && prev != nil && prev.Type == tokIdent && before != nil && before.Type == tokIdent && before.Value == "with":
		// fit m with method = "hmc"
		return "name the sampler itself after with: fit m with hmc"
	case is(tok, "+") && keywordOf(s.tokens, tok.Pos.Offset) == "fit" && !nested:
		// fit m with hmc + gibbs
		return "a fit runs one method; auto chooses Gibbs or exact HMC column by column"
	case tok.Type == tokString && prev != nil && prev.Type == tokIdent && prev.Pos.Offset+len(prev.Value) == tok.Pos.Offset:
		// print f"x = {x}", Python's prefixed strings.
		return "strings have no prefix and no {} interpolation: list the values, as in print \"C12 =\", m.C[1, 2]"
	case is(tok, "=") && nested && prev != nil && prev.Type == tokIdent && before != nil && is(*before, "."):
		// load("x.csv", na.strings = "NA"): R's dotted argument names.
		if prev.Value == "strings" {
			return "argument names have no dots; load's texts of missing cells are na = [\"NA\", \"-99\"]"
		}
		if fn := previousToken(s.tokens, opener.Pos.Offset); opener.Value == "(" && fn != nil && fn.Type == tokIdent {
			return "argument names have no dots: help " + fn.Value + " lists its arguments"
		}
		return "argument names have no dots"
	case is(tok, "}") && !nested:
		return "this } closes nothing: a model's statements go inside its one pair of { }"
	case tok.Type == tokIdent && tok.Value == "to" && !nested && settingBefore(s.tokens, tok.Pos.Offset):
		// summary m.C, prob = 0.8 to "C.tex": R's habit of a file
		// argument last.
		switch kw := keywordOf(s.tokens, tok.Pos.Offset); kw {
		case "summary", "plot", "impute":
			return fmt.Sprintf("to and its file come before the settings, as in %s", toExamples[kw])
		}
	case is(tok, ",") && keywordOf(s.tokens, tok.Pos.Offset) == "show" && !nested:
		return "show [m1, m2] shows several side by side"
	case tok.Type == tokIdent && prev != nil && prev.Type == tokIdent && before != nil && before.Type == tokIdent &&
		before.Value == "show" && startsStmt(previousToken(s.tokens, before.Pos.Offset)) && !nested:
		// show full fac: two names without a comma
		return fmt.Sprintf("show [%s, %s] shows several side by side", prev.Value, tok.Value)
	case (tok.Type == tokSep || tok.Type == tokEOF) && s.after == "{" && prev != nil && prev.Type == tokIdent &&
		before != nil && before.Type == tokIdent && before.Value == "model":
		// model m on one line, { on the next, as C and Java put it.
		return braceHint(prev.Value)
	case is(tok, "(") && prev != nil && prev.Type == tokIdent && isKeyword(prev.Value) && startsStmt(before):
		// help(fit), fit(m, iter = 10), explain(m): R and Python call them.
		return prev.Value + " is a statement, not a function: write it without parentheses, as in " + statementExample(prev.Value)
	case is(tok, "=") && prev != nil && prev.Type == tokIdent && !isKeyword(prev.Value) && startsStmt(before) && !inModel:
		// sim = simulate(...), m = fit(m), x = 3: Python's and R's habit
		// of assigning every result.
		return assignmentHint(prev.Value, next)
	case is(tok, ":") && next.Type == tokPunct && next.Value == "=":
		return "a name or setting is given a value with =, as in data gss = load(\"gss.csv\") or fit m, iter = 1000"
	case is(tok, "~") && prevIs("="):
		// lavaan's F =~ x1 + x2.
		return "copulang has no measurement model written by hand: C ~ FactorModel(k = 2) gives the copula two factors loading on every column of Y"
	case is(tok, "~") && prevIs("~"):
		return "every covariance is in C: Z ~ GaussianCopula(C) and a prior for C, as in C ~ LKJ(eta = 2)"
	case is(tok, ",") && inModel:
		return "separate a model's statements with ';' or new lines, as in model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }"
	case is(tok, "(") && inModel && prev != nil && prev.Type == tokIdent && prev.Value == "ordinal":
		return "the link is written without parentheses: Y ordinal Z"
	case is(tok, ",") && prev != nil && prev.Type == tokIdent && before != nil && before.Type == tokIdent && before.Value == "explain":
		return "explain fit m, iter = 1000 plans a fit with settings"
	case tok.Type == tokIdent && tok.Value == "with" && keywordOf(s.tokens, tok.Pos.Offset) == "extend":
		return "an extension keeps the fit's sampler; to use another, fit again: fit m with gibbs"
	case is(tok, "(") && prev != nil && prev.Type == tokIdent && before != nil && before.Type == tokIdent &&
		(before.Value == "fit" || before.Value == "extend") && startsStmt(previousToken(s.tokens, before.Pos.Offset)):
		return "settings follow a comma: " + before.Value + " " + prev.Value + ", iter = 1000"
	case tok.Type == tokIdent && keywordOf(s.tokens, tok.Pos.Offset) == "fit" && prev != nil && prev.Type == tokIdent &&
		(prev.Value == "fit" || prev.Value == "with" || before != nil && before.Type == tokIdent && before.Value == "fit"):
		// fit with hmc m, fit hmc m
		return "the model's name comes first, then with and the sampler: fit m with hmc, iter = 1000"
	case tok.Type == tokIdent && tok.Value == "using" || tok.Type == tokIdent && tok.Value == "method" && keywordOf(s.tokens, tok.Pos.Offset) == "fit":
		return "the sampler is named after with: fit m with hmc, iter = 1000"
	case tok.Type == tokNumber && prevIs(",") && before != nil && before.Type == tokNumber && tok.Pos.Line == prev.Pos.Line &&
		prev.Pos.Offset == before.Pos.Offset+len(before.Value) && len(tok.Value) == 3:
		// iter = 1,000
		return "numbers have no thousands separator: write " + before.Value + tok.Value
	case tok.Type == tokIdent && prev != nil && prev.Type == tokNumber && prev.Pos.Offset+len(prev.Value) == tok.Pos.Offset:
		// 1_000, 1000L, 2k
		return "a number is written with digits, an optional decimal point and exponent: 1000, 0.5, 1e3"
	}
	return ""
}

// closerOf is the bracket that closes opener.
func closerOf(opener string) string {
	return map[string]string{"(": ")", "[": "]", "{": "}"}[opener]
}

// unmatchedOpener returns the innermost bracket still open before offset.
func unmatchedOpener(toks []lexer.Token, offset int) (lexer.Token, bool) {
	var open []lexer.Token
	for _, t := range toks {
		if t.Pos.Offset >= offset || t.Type == tokEOF {
			break
		}
		if t.Type != tokPunct {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			open = append(open, t)
		case ")", "]", "}":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return lexer.Token{}, false
	}
	return open[len(open)-1], true
}

// modelBrace returns the { of the model block that offset is in.
func modelBrace(toks []lexer.Token, offset int) (lexer.Token, bool) {
	b, ok := unmatchedOpener(toks, offset)
	return b, ok && b.Value == "{"
}

// modelLeftOpen reports whether tok's line, inside a model's braces,
// begins with a statement keyword, as a line after a model whose } was
// forgotten does: "fit m" read as an item of the model.
func modelLeftOpen(s *scanResult, tok, brace lexer.Token) bool {
	i := slices.IndexFunc(s.tokens, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 {
		return false
	}
	for i > 0 && s.tokens[i-1].Type != tokSep && !(s.tokens[i-1].Type == tokPunct && s.tokens[i-1].Value == "{") {
		i--
	}
	first := s.tokens[i]
	return first.Type == tokIdent && isKeyword(first.Value) && first.Pos.Line > brace.Pos.Line
}

// keywordOf returns the keyword of the top-level statement offset is in,
// or "".
func keywordOf(toks []lexer.Token, offset int) string {
	return spotOf(toks, offset).keyword
}

// toExamples are the statements that write a file and take settings,
// with one after the file.
var toExamples = map[string]string{
	"summary": `summary m.C to "C.tex", prob = 0.95`,
	"plot":    `plot graph m.partial to "graph.pdf", prob = 0.95`,
	"impute":  `impute m to "cells.csv", prob = 0.5`,
}

// settingBefore reports whether a setting (NAME = VALUE) comes before
// offset in its statement, outside brackets.
func settingBefore(toks []lexer.Token, offset int) bool {
	is := func(t lexer.Token, punct string) bool { return t.Type == tokPunct && t.Value == punct }
	depth := 0
	for t := previousToken(toks, offset); t != nil && t.Type != tokSep; t = previousToken(toks, t.Pos.Offset) {
		switch {
		case is(*t, ")") || is(*t, "]") || is(*t, "}"):
			depth++
		case is(*t, "(") || is(*t, "[") || is(*t, "{"):
			if depth == 0 {
				return false
			}
			depth--
		case is(*t, "=") && depth == 0:
			return true
		}
	}
	return false
}

// statementExample writes a statement as it is written, for the hint to
// a statement called as a function.
func statementExample(kw string) string {
	if ex, ok := settingExamples[kw]; ok {
		return ex
	}
	switch kw {
	case "help":
		return "help fit"
	case "plot":
		return "plot trace m.C[1, 2]"
	case "data":
		return `data gss = load("gss.csv")`
	case "export":
		return `export m to "draws.csv"`
	case "show":
		return "show gss"
	case "print":
		return `print "C12 =", m.C[1, 2]`
	case "model":
		return "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }"
	}
	return kw
}

// braceHintPrefix begins the hint for a model whose { is on the line
// below its name; braceHint is the whole of it.
const braceHintPrefix = "the { goes on the model's line: model "

func braceHint(model string) string { return braceHintPrefix + model + " {" }

// braceOnNextLine reports whether toks, a statement that did not parse,
// start with the { of the model named on the line above (model m, then {
// on its own line, as C and Java put it), whose error, the last of errs,
// already says to move the {: its error would only repeat that.
func braceOnNextLine(errs ErrorList, toks []lexer.Token) bool {
	if len(errs) == 0 || len(toks) == 0 || toks[0].Type != tokPunct || toks[0].Value != "{" {
		return false
	}
	last := errs[len(errs)-1]
	return strings.HasPrefix(last.Hint, braceHintPrefix) && toks[0].Pos.Line == last.Pos.Line+1
}

// openBracket returns the index of the innermost bracket still open at
// toks[i], within its statement, or -1.
func openBracket(toks []lexer.Token, i int) int {
	depth := 0
	for j := i - 1; j >= 0 && toks[j].Type != tokSep; j-- {
		if toks[j].Type != tokPunct {
			continue
		}
		switch toks[j].Value {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// indexHint says how to write the indices of m.C[...] or the items of a
// list when tok, in them, is a second item without a comma (m.C[Y1 Y2],
// [id name]) or R's range operator (m.C[1:3]); "" otherwise.
func indexHint(toks []lexer.Token, tok lexer.Token, prev *lexer.Token) string {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 || prev == nil {
		return ""
	}
	open := openBracket(toks, i)
	if open < 1 || toks[open].Value != "[" || toks[open+1].Pos.Offset > prev.Pos.Offset {
		return ""
	}
	// An index follows what it indexes (m.C[, d[, ...][); a list follows
	// "=", "(" or ",".
	before := toks[open-1]
	index := before.Type == tokIdent || before.Type == tokPunct && (before.Value == "]" || before.Value == ")")
	isItem := func(t lexer.Token) bool { return t.Type == tokIdent || t.Type == tokNumber || t.Type == tokString }
	switch {
	case index && tok.Type == tokPunct && tok.Value == ":" && isItem(*prev):
		return "there are no ranges such as R's 1:3: name each column, as in m.C[Y1, Y2], or one alone for its row, m.C[Y1]"
	case index && isItem(tok) && isItem(*prev):
		return "separate the indices with ',', as in m.C[Y1, Y2]"
	case isItem(tok) && isItem(*prev):
		return "separate the items of a list with ',', as in [a, b]"
	}
	return ""
}

// stanTypes are Stan's declaration types, which begin a line of a Stan
// program's data and parameters blocks.
var stanTypes = []string{"real", "int", "vector", "row_vector", "matrix", "corr_matrix", "cov_matrix",
	"cholesky_factor_corr", "cholesky_factor_cov", "simplex", "ordered", "positive_ordered", "unit_vector",
	"array", "complex"}

// stanDeclaration reports the Stan type that begins tok's statement (or
// model item) when it is followed by a name, a [ or a <: a declaration
// such as vector[5] y or corr_matrix[p] C.
func stanDeclaration(toks []lexer.Token, tok lexer.Token) (string, bool) {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 {
		i = len(toks) - 1
	}
	for i > 0 && toks[i-1].Type != tokSep && !(toks[i-1].Type == tokPunct && toks[i-1].Value == "{") {
		i--
	}
	first := toks[i]
	if first.Type != tokIdent || !slices.Contains(stanTypes, first.Value) || i+1 >= len(toks) {
		return "", false
	}
	if next := toks[i+1]; next.Type == tokIdent || next.Type == tokPunct && next.Value == "[" {
		return first.Value, true
	}
	return "", false
}

// stanHint says what copulang writes instead of a Stan declaration of
// type word.
func stanHint(word string) string {
	const model = "a model names its data (Y = gss), the copula of its latent Z (Z ~ GaussianCopula(C)) and C's prior (C ~ LKJ(eta = 2))"
	switch word {
	case "corr_matrix", "cholesky_factor_corr", "cov_matrix", "cholesky_factor_cov":
		return "C needs no declaration such as Stan's " + word + ": " + model + ", and C's size is the number of columns of Y"
	}
	return "copulang has no declarations such as Stan's " + word + ": " + model + ", and sizes and bounds follow from the data"
}

// itemsText is the text of the items inside the bracket opener, up to
// its closer (or the end of the statement): the (a, b) of m.C[(a, b)].
func itemsText(toks []lexer.Token, opener lexer.Token) string {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset > opener.Pos.Offset })
	var parts []string
	depth := 0
	for ; i >= 0 && i < len(toks); i++ {
		t := toks[i]
		if t.Type == tokEOF || t.Type == tokSep {
			break
		}
		if t.Type == tokPunct {
			switch t.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return strings.Join(parts, "")
				}
				depth--
			case ",":
				parts = append(parts, ", ")
				continue
			}
		}
		parts = append(parts, t.Value)
	}
	return strings.Join(parts, "")
}

// emptyRowIndex gives the hint for R's data[, cols] (a [ followed at once
// by a comma: no rows, then the columns) when tok is that [ or comma; its
// example lists the columns, out of R's c(...) when they are in one.
func emptyRowIndex(toks []lexer.Token, tok lexer.Token) (string, bool) {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= tok.Pos.Offset })
	if i < 0 || toks[i].Type != tokPunct {
		return "", false
	}
	open := -1
	switch {
	case toks[i].Value == "[" && i+1 < len(toks) && toks[i+1].Type == tokPunct && toks[i+1].Value == ",":
		open = i
	case toks[i].Value == "," && i > 0 && toks[i-1].Type == tokPunct && toks[i-1].Value == "[":
		open = i - 1
	}
	if open < 1 || toks[open-1].Type != tokIdent {
		return "", false
	}
	name := toks[open-1].Value
	cols := itemsText(toks, toks[open+1]) // the items after the comma
	if strings.HasPrefix(cols, "c(") && strings.HasSuffix(cols, ")") {
		cols = strings.TrimSuffix(strings.TrimPrefix(cols, "c("), ")")
	}
	cols = strings.TrimSpace(cols)
	if cols == "" {
		cols = "income, degree"
	}
	return "brackets pick columns only (there are no rows to pick, as in R's " + name + "[rows, cols]): write " + name + "[" + cols + "]", true
}

// indexedText is what the bracket open indexes, as written (m.C of
// m.C[...]): the names and dots just before it, or "m.C" when there are
// none.
func indexedText(toks []lexer.Token, open lexer.Token) string {
	i := slices.IndexFunc(toks, func(t lexer.Token) bool { return t.Pos.Offset >= open.Pos.Offset })
	if i <= 0 || toks[i-1].Type != tokIdent {
		return "m.C"
	}
	// NAME(.NAME)* just before the bracket.
	j := i - 1
	for j >= 2 && toks[j-1].Type == tokPunct && toks[j-1].Value == "." && toks[j-2].Type == tokIdent {
		j -= 2
	}
	var b strings.Builder
	for _, t := range toks[j:i] {
		b.WriteString(t.Value)
	}
	return b.String()
}

// predictHint is the hint to a mistake in a predict statement that
// another language's habit explains: a condition after where or if (as a
// subset is written), a column of another model (m2.income), or a given
// value compared with ==; "" otherwise.
func predictHint(toks []lexer.Token, tok lexer.Token, prev *lexer.Token) string {
	if keywordOf(toks, tok.Pos.Offset) != "predict" {
		return ""
	}
	const example = "predict m[degree] given income = 5, pdegree = 3"
	switch {
	case tok.Type == tokIdent && (tok.Value == "where" || tok.Value == "if" || tok.Value == "when"):
		return "predict writes what it conditions on after given, as in " + example
	case tok.Type == tokPunct && tok.Value == "." && prev != nil && prev.Type == tokIdent && givenSeen(toks, tok.Pos.Offset):
		return "a given column is one of the model's own columns, named alone, as in " + example
	case tok.Type == tokPunct && tok.Value == "==" && givenSeen(toks, tok.Pos.Offset):
		return "a given value is written COL = VALUE, as in " + example
	}
	return ""
}

// givenSeen reports whether the word given comes before offset in the
// statement it is in.
func givenSeen(toks []lexer.Token, offset int) bool {
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		if t.Pos.Offset >= offset {
			continue
		}
		if t.Type == tokSep {
			return false
		}
		if t.Type == tokIdent && t.Value == "given" {
			return true
		}
	}
	return false
}
