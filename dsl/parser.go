package dsl

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

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
		&PlotStmt{}, &ImputeStmt{}, &ExportStmt{}, &ShowStmt{},
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
// statement that failed to parse (up to ten), and the returned File holds the
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
	s := scan(filename, src)
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
			cs := scanRange(src, pos, end)
			if end < len(src) {
				cs.cut = src[end]
				cs.after = firstWord(src[end+1:])
			}
			if cs.err != nil {
				errs = append(errs, cs.err)
			} else if len(cs.open) > 0 && len(cs.tokens) > maxUnclosedParse {
				// The parser would parse all of it only to fail at its end
				// (seconds for a megabyte of model block): say so at once.
				errs = append(errs, unclosedError(cs))
			} else if cf, err := parseTokens(cs.tokens); err != nil {
				errs = append(errs, convertError(err, cs))
			} else {
				stmts = append(stmts, cf.Stmts...)
			}
			if len(errs) == maxErrors {
				break
			}
		}
		// Move past the chunk and its separator.
		next := min(end+1, len(src))
		pos.Advance(string(src[pos.Offset:next]))
	}
	if len(errs) == 0 {
		// Every statement parses alone although the whole does not; this
		// should not happen, but report the whole's error rather than none.
		if s.err != nil {
			errs = append(errs, s.err)
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
	switch comma, continued := continuedByComma(s.tokens, tok); {
	case continued:
		e.Hint = fmt.Sprintf("line %d ends with a comma (at %d:%d), so the statement goes on to this line; delete the comma if the statement ends there",
			comma.Pos.Line, comma.Pos.Line, comma.Pos.Column)
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
	case tok.Type == tokPunct && tok.Value == "=" && prev != nil && prev.Type == tokIdent && !isKeyword(prev.Value) &&
		startsStatement(s.tokens, prev) && !insideModel(s.tokens, tok.Pos.Offset):
		// sim = simulate(...), m = fit(m), x = 3: Python's and R's habit
		// of assigning every result.
		e.Hint = assignmentHint(prev.Value, next)
	case tok.Type == tokPunct && tok.Value == "/" && next.Type == tokPunct && (next.Value == "/" || next.Value == "*") &&
		next.Pos.Offset == tok.Pos.Offset+1,
		tok.Type == tokPunct && (tok.Value == "/" || tok.Value == "*") && prev != nil && prev.Type == tokPunct && prev.Value == "/" &&
			tok.Pos.Offset == prev.Pos.Offset+1:
		// // and /* */, as C, Java and JavaScript write comments.
		e.Hint = "comments start with #"
	case tok.Type == tokPunct && tok.Value == "=" && prev != nil && prev.Type == tokIdent && prev.Value == "method":
		// fit m with method = "hmc"
		e.Hint = "name the sampler alone after with: fit m with hmc"
	case tok.Type == tokPunct && tok.Value == "=" && next.Type == tokPunct && next.Value == "=":
		e.Hint = "there is no == operator"
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
	"export":  `export m to "draws.csv"`,
}

// startsStatement reports whether tok is the first token of a top-level
// statement.
func startsStatement(toks []lexer.Token, tok *lexer.Token) bool {
	before := previousToken(toks, tok.Pos.Offset)
	return before == nil || before.Type == tokSep
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

// continuedByComma reports the comma that ends the line before tok's when
// that comma joined a statement keyword, the first token of tok's line, to
// the statement before: "fit m, iter = 20," followed by "summary m.C" is
// one statement, and its error falls on the summary line.
func continuedByComma(toks []lexer.Token, tok lexer.Token) (lexer.Token, bool) {
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
	comma := toks[i-1]
	return comma, comma.Type == tokPunct && comma.Value == ","
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
