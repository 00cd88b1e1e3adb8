package dsl

import (
	"bytes"
	"errors"
	"fmt"
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

// maxErrors bounds the number of syntax errors reported for one source.
const maxErrors = 10

// parser is built once; a participle parser is immutable after Build and
// safe for concurrent use.
var parser = participle.MustBuild[File](
	participle.Lexer(definition{}),
	participle.Union[Stmt](
		&DataStmt{}, &ModelStmt{}, &ExplainStmt{}, &FitStmt{}, &SummaryStmt{},
		&PlotStmt{}, &ImputeStmt{}, &ExportStmt{}, &ShowStmt{},
	),
	participle.Union[ModelItem](&Assign{}, &Tilde{}, &Relation{}),
	participle.UseLookahead(lookahead),
)

// Grammar returns the grammar in participle's EBNF notation.
func Grammar() string { return parser.String() }

// statementKeywords are the words that begin a top-level statement.
var statementKeywords = []string{"data", "model", "explain", "fit", "summary", "plot", "impute", "export", "show"}

// StatementKeywords returns the words that begin a top-level statement, in
// the order of the language reference.
func StatementKeywords() []string { return append([]string(nil), statementKeywords...) }

// Parse parses a script or notebook cell. filename is used in positions
// (it may be empty). On failure the error is an ErrorList with one error per
// statement that failed to parse (up to ten), and the returned File holds the
// statements that did parse, so that tools can still use them; on success
// the error is nil.
func Parse(filename string, src []byte) (*File, error) {
	s := scan(filename, src)
	if s.err == nil {
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
			if cs.err != nil {
				errs = append(errs, cs.err)
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

// parseTokens runs the participle parser on scanned tokens.
func parseTokens(tokens []lexer.Token) (*File, error) {
	peek, err := lexer.Upgrade(&tokenStream{tokens: tokens})
	if err != nil {
		return nil, err
	}
	return parser.ParseFromLexer(peek)
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
	msg := "unexpected " + describe(tok)
	expected := ""
	if _, after, ok := strings.Cut(ute.Message(), " (expected "); ok {
		expected = readableExpect(strings.TrimSuffix(after, ")"))
		msg += " (expected " + expected + ")"
	}
	e := &Error{Pos: tok.Pos, Msg: msg}
	prev := previousToken(s.tokens, tok.Pos.Offset)
	next := nextToken(s.tokens, tok.Pos.Offset)
	atStmtStart := prev == nil || prev.Type == tokSep || (prev.Type == tokPunct && prev.Value == "{")
	switch {
	case tok.Type == tokEOF && len(s.open) > 0:
		b := s.open[len(s.open)-1]
		e.Hint = fmt.Sprintf("the %q at %d:%d is never closed", string(b.char), b.pos.Line, b.pos.Column)
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
	case tok.Type == tokPunct && tok.Value == "=" && next.Type == tokPunct && next.Value == "=":
		e.Hint = "there is no == operator"
	case tok.Type == tokSep && tok.Value == "\n" && expected != "":
		e.Hint = "a statement ends at the end of its line, unless a ( or [ is still open"
	}
	return e
}

func isKeyword(w string) bool {
	for _, k := range statementKeywords {
		if k == w {
			return true
		}
	}
	return false
}

// describe names a token for a message.
func describe(tok lexer.Token) string {
	switch {
	case tok.Type == tokEOF:
		return "end of input"
	case tok.Type == tokSep && tok.Value == "\n":
		return "newline"
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

// readableExpect replaces grammar rule names in participle's "expected ..."
// text by words a user knows.
func readableExpect(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		switch w {
		case "Expr", "Term", "Unary", "Postfix", "Primary":
			words[i] = "expression"
		case "Ident", "<ident>":
			words[i] = "name"
		case "StringLit", "<string>":
			words[i] = "string"
		case "NamedArg":
			words[i] = "name = value"
		case "ModelItem":
			words[i] = "model statement"
		case "Stmt":
			words[i] = "statement"
		case "Method":
			words[i] = "method"
		}
	}
	return strings.Join(words, " ")
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
