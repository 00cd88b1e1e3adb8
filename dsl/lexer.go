package dsl

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Position is a place in the source: Offset is the 0-based byte offset,
// Line and Column are 1-based (Column counts runes), and lines are counted
// within the parsed text (a notebook cell counts its own lines).
//
// It is participle's lexer.Position, so participle fills the Pos fields of
// the AST directly.
type Position = lexer.Position

// Token types of the copulang lexer, as named in the grammar.
const (
	tokEOF    = lexer.EOF
	tokIdent  = lexer.TokenType(-2)
	tokNumber = lexer.TokenType(-3)
	tokString = lexer.TokenType(-4)
	tokSep    = lexer.TokenType(-5) // a newline or ';' ending a statement
	tokPunct  = lexer.TokenType(-6) // one of = ~ + - * / ( ) [ ] { } , . : or a comparison, == != < <= > >=
)

// MaxNesting is how deeply brackets ( [ { may nest. Deeper nesting is a
// syntax error found by the scanner, before the parser (which recurses once
// per level) ever sees it: parsing stays linear in time and bounded in
// memory whatever the input.
const MaxNesting = 100

// maxSigns is how many '-' may follow one another (with only spaces,
// comments or, inside brackets, line breaks between them). Each after the
// first is a unary minus, which the parser, like a bracket, meets by
// recursing: a megabyte of them overflowed the stack, which no recover
// catches.
const maxSigns = MaxNesting

// maxRunShown is the most characters of a run of unexpected ones that its
// error quotes.
const maxRunShown = 20

// punctuation lists the single-character tokens.
const punctuation = "=~+-*/()[]{},.:"

// definition is the lexer.Definition of copulang. It is hand-written rather
// than regular-expression based so that it can drop newlines inside
// parentheses and brackets, report an unterminated string at its opening
// quote, and tell IsComplete which brackets are still open.
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":    tokEOF,
		"Ident":  tokIdent,
		"Number": tokNumber,
		"String": tokString,
		"Sep":    tokSep,
		"Punct":  tokPunct,
	}
}

func (d definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexBytes(filename, src)
}

func (d definition) LexString(filename string, src string) (lexer.Lexer, error) {
	return d.LexBytes(filename, []byte(src))
}

func (definition) LexBytes(filename string, src []byte) (lexer.Lexer, error) {
	s := scan(filename, src)
	if s.err != nil {
		return nil, s.err
	}
	return &tokenStream{tokens: s.tokens}, nil
}

// scan tokenises the whole of src, keeping every token.
func scan(filename string, src []byte) *scanResult {
	return scanRange(src, Position{Filename: filename, Line: 1, Column: 1}, len(src), keepAll)
}

// tokensKept says which tokens a scan keeps.
type tokensKept int

const (
	keepAll        tokensKept = iota // every token
	keepUntilError                   // those before the first lexical error, for a parse
	keepLast                         // the last only, which the scan itself reads
)

// tokenStream hands out pre-scanned tokens; the last one is EOF.
type tokenStream struct {
	tokens []lexer.Token
	next   int
}

func (t *tokenStream) Next() (lexer.Token, error) {
	tok := t.tokens[t.next]
	if t.next < len(t.tokens)-1 {
		t.next++
	}
	return tok, nil
}

// bracket is an opening bracket not yet closed.
type bracket struct {
	char byte
	pos  Position
}

// scanResult is everything one pass of the scanner learns about a source.
type scanResult struct {
	tokens []lexer.Token // significant tokens, ending with EOF
	// err is the first lexical error (nil if none); scanning continues
	// after it so that the other fields describe the whole source.
	err *Error
	// errs holds every lexical error, err first, up to maxErrors: each
	// one independent of the others (a run of unexpected characters, as
	// && or a word of another script, is one error, and a string quoted
	// with ' or curly quotes one error at its opening quote).
	errs []*Error
	// open holds the brackets still open at the end of the source.
	open []bracket
	// tooDeep is true when brackets nest deeper than MaxNesting, or more
	// than MaxNesting minus signs follow one another.
	tooDeep bool
	// stmtEnds holds the offsets of the separators that end a top-level
	// statement (outside every bracket, braces included).
	stmtEnds []int
	// cut is the separator ('\n' or ';') just after the scanned text when
	// it is one statement of a longer source, else 0: its EOF token is
	// then the end of a line, not of the input.
	cut byte
	// openWhere is true when the source ends in a where condition left
	// unfinished (endsWithConnective), or a predict's given
	// (endsWithGiven), which a next line may finish.
	openWhere bool
	// openOperator is true when the source ends with + - * /, an
	// expression left open (summary a.C -).
	openOperator bool
	// openList is true when the source ends with a comma (comments
	// after it aside).
	openList bool
	// after is how the source goes on after the cut, past blank lines and
	// comments: its first name, or its first byte, or "" for nothing.
	after string
}

// scanRange tokenises src[start.Offset:end], where start is the position of
// byte start.Offset. Newlines inside ( ) or [ ] are not separators; inside
// { } they are, unless that brace is itself inside ( ) or [ ] (a map literal
// in an argument list), so a model block takes one statement per line. A
// newline right after a comma (comments and blank lines between them
// included) is never a separator: "fit m, iter = 20," and "warmup = 10" on
// the next line are one statement. String tokens hold their unquoted value.
// keep says which tokens are kept: a source with a lexical error is not
// parsed, so a scan for the parser keeps none after the first (a line of
// 150,000 strings in single quotes took 87 MB for tokens never read), and a
// scan for its lexical errors alone none at all; the last is always kept.
func scanRange(src []byte, start Position, end int, keep tokensKept) *scanResult {
	// Room for the tokens of a statement or a cell at first, and for those
	// of a long source (a token for every 4 bytes) once it has more and no
	// lexical error: a run of unexpected characters has many bytes to a
	// token, and a megabyte of ? took 16 MB for tokens never written.
	estimate := (end-start.Offset)/4 + 8
	res := &scanResult{tokens: make([]lexer.Token, 0, min(estimate, 1024))}
	pos := start
	src = src[:end]
	// The tokens' texts are cut from one copy of the scanned text, not
	// copied one by one (an allocation per token).
	scanned := string(src[start.Offset:])
	textOf := func(from, n int) string { return scanned[from-start.Offset : from-start.Offset+n] }
	parenDepth := 0  // ( and [ currently open
	signs := 0       // '-' tokens emitted one after another, to the last token
	inWhere := false // the statement has a where, outside brackets, so far
	advance := func(n int) {
		pos.Advance(textOf(pos.Offset, n))
	}
	// full says that no more errors are kept, so that a line of a hundred
	// thousand errors does not write their messages only to drop them.
	full := func() bool { return len(res.errs) >= maxErrors }
	fail := func(at Position, msg, hint string) {
		if len(res.errs) < maxErrors {
			res.errs = append(res.errs, &Error{Pos: at, Msg: msg, Hint: hint})
		}
		if res.err == nil {
			res.err = res.errs[0]
		}
	}
	// badEnd is the offset just after the last unexpected character, so
	// that a run of them (&&, |>, a word typed in another script) is
	// reported once, at its first.
	badEnd, badStart := -1, 0
	var badErr *Error // the error of the run at badStart (nil past maxErrors)
	// runs are the errors of runs of more than one unexpected character,
	// with their extent; their messages are written once the scan ends.
	type run struct {
		err        *Error
		start, end int
	}
	var runs []run
	// noCloserUntil is, for an opening quote other than ", the end of the
	// line past which an earlier search found no closing quote: a later
	// quote of that kind on the line has none either, so each line is
	// searched once (a line of a million „ stays linear).
	noCloserUntil := map[rune]int{}
	// noBlockEnd is true once a /* found no */ after it.
	noBlockEnd := false
	// stmtStart is true before a statement's first token; stmtData says
	// that the statement begins with data, whose where condition may go
	// on after a line's and (inWhere).
	// stmtPredict says that it begins with predict, whose given values
	// may start on the line after given.
	stmtStart, stmtData, stmtPredict := true, false, false
	push := func(tok lexer.Token) {
		switch {
		case tok.Type == tokSep:
			stmtStart, inWhere = true, false
		case stmtStart:
			stmtStart, stmtData = false, tok.Type == tokIdent && tok.Value == "data"
			stmtPredict = tok.Type == tokIdent && tok.Value == "predict"
		}
		if (keep == keepLast || keep == keepUntilError && res.err != nil) && len(res.tokens) > 0 {
			res.tokens[len(res.tokens)-1] = tok
			return
		}
		if len(res.tokens) == cap(res.tokens) && cap(res.tokens) < estimate {
			res.tokens = append(make([]lexer.Token, 0, estimate), res.tokens...)
		}
		res.tokens = append(res.tokens, tok)
	}
	emit := func(typ lexer.TokenType, n int) {
		if typ == tokPunct && src[pos.Offset] == '-' {
			signs++
		} else {
			signs = 0
		}
		push(lexer.Token{Type: typ, Value: textOf(pos.Offset, n), Pos: pos})
		advance(n)
	}
	for pos.Offset < len(src) {
		rest := src[pos.Offset:]
		c := rest[0]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			advance(1)
		case c == '#':
			n := bytes.IndexByte(rest, '\n')
			if n < 0 {
				n = len(rest)
			}
			advance(n)
		case c == '\n' && parenDepth == 0 && (endsWithComma(res.tokens) || endsWithOperator(res.tokens) || inWhere && endsWithConnective(res.tokens) || stmtPredict && endsWithGiven(res.tokens)):
			// A line ending with a comma goes on to the next line, past
			// blank lines and comments: the statement is a list still open;
			// so does a line that ends with + - * / (an expression still
			// open, as R reads it: summary a.C - newline b.C), a where
			// condition's line that ends with where, and, or, not or a
			// comparison, and a predict's line that ends with given.
			advance(1)
		case c == '\n' || c == ';':
			if c == ';' || parenDepth == 0 {
				if len(res.open) == 0 {
					res.stmtEnds = append(res.stmtEnds, pos.Offset)
				}
				emit(tokSep, 1)
			} else {
				advance(1)
			}
		case isLetter(c):
			n := 1
			for n < len(rest) && (isLetter(rest[n]) || isDigit(rest[n])) {
				n++
			}
			emit(tokIdent, n)
			if stmtData && parenDepth == 0 && n == len("where") && string(rest[:n]) == "where" {
				inWhere = true
			}
		case isDigit(c) || (c == '.' && len(rest) > 1 && isDigit(rest[1])):
			emit(tokNumber, numberLength(rest))
		case c == '"':
			n, closed := stringLength(rest)
			if !closed {
				fail(pos, "unterminated string", "close it with \" on the same line")
				emit(tokString, n) // the partial text, so later checks see a token here
				continue
			}
			text := textOf(pos.Offset, n)
			if _, err := strconv.Unquote(text); err != nil {
				hint := `escapes are as in Go: \" \\ \n \t \u00e9`
				if looksLikeWindowsPath(text) {
					// load("C:\data\gss.csv"): a Windows path.
					hint = "a path is written with /, on Windows too: " + strings.ReplaceAll(text, `\`, "/")
				}
				fail(pos, "invalid escape in string "+text, hint)
			}
			// The token keeps its quotes, so that no string reads as the
			// grammar's literal of the same text ("with" as with, ")" as
			// a parenthesis); parseTokens unquotes StringLit after parsing.
			push(lexer.Token{Type: tokString, Value: text, Pos: pos})
			signs = 0
			advance(n)
		case c == '/' && len(rest) > 1 && (rest[1] == '/' || rest[1] == '*'):
			// Stan's and C's comments: say so, rather than "unexpected /"
			// from the parser.
			hint := "comments start with #, to the end of the line"
			n := bytes.IndexByte(rest, '\n')
			if n < 0 {
				n = len(rest)
			}
			if rest[1] == '*' && !noBlockEnd {
				// /* ... */ over several lines: one error, not one for
				// each line of the comment read as statements.
				if e := bytes.Index(rest[2:], []byte("*/")); e >= 0 {
					if e+2 > n {
						hint += ": put # before each line of this comment"
					}
					n = e + 4
				} else {
					noBlockEnd = true // nor for any later /*
				}
			}
			fail(pos, fmt.Sprintf("unexpected %q", rest[:2]), hint)
			advance(n)
		case pos.Offset != badEnd && comparisonLength(res.tokens, rest, pos.Offset) > 0:
			// (A > just after unexpected characters, as in |>, is of their run.)
			emit(tokPunct, comparisonLength(res.tokens, rest, pos.Offset))
		case bytes.IndexByte([]byte(punctuation), c) >= 0:
			switch c {
			case '(', '[', '{':
				if len(res.open) == MaxNesting {
					// Stop here: nothing after this can make the source
					// valid, and scanning on would only cost time.
					res.tooDeep = true
					fail(pos, fmt.Sprintf("brackets nest deeper than %d levels", MaxNesting),
						"split the expression, or close the brackets opened before")
					push(lexer.EOFToken(pos))
					return res
				}
				res.open = append(res.open, bracket{c, pos})
				if c != '{' {
					parenDepth++
				}
			case ')', ']', '}':
				if k := len(res.open); k > 0 {
					if res.open[k-1].char != '{' {
						parenDepth--
					}
					res.open = res.open[:k-1]
				}
			case '-':
				if signs == maxSigns {
					// As for brackets: stop, since the source cannot parse.
					res.tooDeep = true
					fail(pos, fmt.Sprintf("more than %d minus signs in a row", maxSigns),
						"each - after the first negates again: - - x is x")
					push(lexer.EOFToken(pos))
					return res
				}
			}
			emit(tokPunct, 1)
		default:
			r, size := utf8.DecodeRune(rest)
			n, ok := 0, false
			if isOtherQuote(r) && pos.Offset >= noCloserUntil[r] {
				if n, ok = quotedOtherwise(rest, r); !ok {
					if eol := bytes.IndexByte(rest, '\n'); eol >= 0 {
						noCloserUntil[r] = pos.Offset + eol
					} else {
						noCloserUntil[r] = len(src)
					}
				}
			}
			if ok {
				// 'x.csv' or “x.csv”: one error at the opening quote, and
				// the text up to the closing one is a string, so that its
				// closing quote is not a second error.
				if !full() {
					fail(pos, fmt.Sprintf("unexpected character %q", r), quoteHint(r))
				}
				push(lexer.Token{Type: tokString, Value: textOf(pos.Offset, n), Pos: pos})
				signs = 0
				advance(n)
				continue
			}
			if pos.Offset == badEnd {
				// The rest of a run already reported: the error names
				// the whole run, which is taken at once up to its end or
				// the next quote (which may open a string): the run has
				// no newline, so its column counts its runes.
				n := size + strayRun(rest[size:], pos.Offset+size, noCloserUntil)
				pos.Column += utf8.RuneCountInString(textOf(pos.Offset, n))
				pos.Offset += n
				badEnd = pos.Offset
				if k := len(runs) - 1; badErr != nil && k >= 0 && runs[k].err == badErr {
					runs[k].end = badEnd
				} else if badErr != nil {
					runs = append(runs, run{err: badErr, start: badStart, end: badEnd})
				}
				continue
			}
			hint := ""
			switch r {
			case '\'', '\u201c', '\u201d':
				hint = quoteHint(r)
			case '?':
				// IPython's fit? (or ?fit) asks for help: the kernel answers a
				// cell of only that (session.helpQuery); anywhere else it is an error.
				hint = "help WORD says what a statement, setting or name is (help alone lists the statements); in a notebook, a cell of only WORD? shows it in the pager, as Shift-Tab on the word does"
			case '%', '!':
				if c == '%' && pos.Offset > 0 && isDigit(src[pos.Offset-1]) {
					hint = "write a share as a number: 90% is 0.9"
				} else if startsLine(src, pos.Offset) {
					// %time, !ls: what IPython users type in a cell.
					hint = "a cell holds copulang statements only: IPython's magics (%) and shell commands (!) are not part of the language"
				} else if c == '!' {
					hint = "a where condition is negated with not, as in where not (age < 30); != compares"
				} else {
					hint = "the language has only + - * / in expressions"
				}
			case '<':
				if k := len(res.tokens); k > 0 && res.tokens[k-1].Type == tokIdent && slices.Contains(stanTypes, res.tokens[k-1].Value) &&
					res.tokens[k-1].Pos.Offset+len(res.tokens[k-1].Value) == pos.Offset {
					// real<lower=0> x: one error, up to the > that closes
					// the bounds on its line.
					fail(pos, fmt.Sprintf("unexpected %q", "<"), stanHint(res.tokens[k-1].Value))
					n := bytes.IndexAny(rest, ">\n")
					if n < 0 || rest[n] == '\n' {
						n = 0
					}
					advance(n + 1)
					continue
				} else if len(rest) > 1 && rest[1] == '-' && inWhere {
					// where age<-1: R reads its assignment there too.
					hint = "<- is read as R's assignment, as R reads it: to compare with a negative number, put a space after <, as in where age < -1"
				} else if len(rest) > 1 && rest[1] == '-' {
					hint = "R's <- is written =, and only where a name is bound: data gss = load(\"gss.csv\") or model m { ... }"
				} else {
					hint = "the language has only + - * / in expressions, and a where condition compares with < <= > >= == !="
				}
			case '&':
				hint = "a where condition joins its tests with and, as in where age >= 50 and degree != 0; an expression has only + - * /"
			case '|':
				if len(rest) > 1 && rest[1] == '>' {
					hint = "the language has only + - * / in expressions"
					break
				}
				hint = "a where condition joins its tests with or, as in where degree == 0 or degree == 4; an expression has only + - * /"
				if stmtPredict {
					// predict m[degree] | income = 5: P(A | B) written out.
					hint = "predict writes what it conditions on after given, as in predict m[degree] given income = 5"
				}
			case '^':
				hint = "the language has only + - * / in expressions"
			case '\u2018', '\u2019', '\u201a', '\u201e', '\u00ab', '\u00bb':
				hint = "strings use plain double quotes \" (a word processor or PDF curls them)"
			case '\u2212', '\u2013', '\u2014', '\u2010', '\u2011':
				hint = "a minus sign or dash copied from a document: type a plain -"
			case '\u00d7', '\u00f7':
				hint = "multiply with * and divide with /"
			case 'π', 'Π':
				hint = "write pi"
			case '$', '@':
				if pos.Offset == 0 || !isLetter(src[pos.Offset-1]) && !isDigit(src[pos.Offset-1]) || len(rest) < 2 || !isLetter(rest[1]) {
					hint = "the language has only + - * / in expressions"
					break
				}
				// m$C, m@C: R's ways to a part of an object.
				hint = "a part of a model is written with a dot, as in m.C, and columns in brackets, as in gss[income] or m.C[income, degree]"
			case '\u3000':
				hint = "a full-width space (an East Asian input method types them): type a plain space"
			case '\u00a0', '\u2007', '\u202f':
				hint = "a non-breaking space (text copied from a web page or a document has them): type a plain space"
			case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
				hint = "an invisible zero-width character (text copied from a web page or a document has them): delete it"
			}
			switch {
			case hint != "":
			case r >= '\uff01' && r <= '\uff5e':
				hint = fmt.Sprintf("a full-width %c: type the plain %c", r, r-0xfee0)
			case unicode.IsLetter(r):
				hint = "a name is made of the letters a to z and A to Z, digits and _; a column named otherwise is written as a string, as in gss[\"âge\"]"
			}
			badErr = nil
			if !full() {
				fail(pos, fmt.Sprintf("unexpected character %q", r), hint)
				badErr = res.errs[len(res.errs)-1]
			}
			badStart = pos.Offset
			advance(size)
			badEnd = pos.Offset
		}
	}
	for _, r := range runs {
		if n := utf8.RuneCountInString(textOf(r.start, r.end-r.start)); n <= maxRunShown {
			r.err.Msg = fmt.Sprintf("unexpected characters %q", src[r.start:r.end])
		} else {
			cut := r.start
			for range maxRunShown {
				_, size := utf8.DecodeRune(src[cut:])
				cut += size
			}
			r.err.Msg = fmt.Sprintf("unexpected characters %q… (%d in a row)", src[r.start:cut], n)
		}
	}
	res.openWhere = inWhere && endsWithConnective(res.tokens) || stmtPredict && endsWithGiven(res.tokens)
	res.openOperator = endsWithOperator(res.tokens)
	res.openList = endsWithComma(res.tokens)
	push(lexer.EOFToken(pos))
	return res
}

// comparisonLength is the length of the comparison operator (== != <= >=
// < >, of a data statement's where) that rest begins with, or 0. A < before
// - is left to the stray-character error, whose hint reads it as R's <-,
// and so is one just after a Stan type (real<lower=0>), whose hint says
// how a model is written.
func comparisonLength(toks []lexer.Token, rest []byte, offset int) int {
	if len(rest) == 0 {
		return 0
	}
	switch c := rest[0]; {
	case len(rest) > 1 && rest[1] == '=' && (c == '=' || c == '!' || c == '<' || c == '>'):
		return 2
	case c == '<' && len(rest) > 1 && rest[1] == '-':
		return 0
	case c == '<':
		if k := len(toks); k > 0 && toks[k-1].Type == tokIdent && slices.Contains(stanTypes, toks[k-1].Value) &&
			toks[k-1].Pos.Offset+len(toks[k-1].Value) == offset {
			return 0
		}
		return 1
	case c == '>':
		return 1
	}
	return 0
}

// notStray reports whether c, an ASCII byte that is no letter or digit,
// begins something the scanner reads: white space, a separator, a
// comment, a string, a quote or punctuation.
func notStray(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\f', '\v', '\n', ';', '#', '"', '\'',
		'=', '~', '+', '-', '*', '/', '(', ')', '[', ']', '{', '}', ',', '.', ':':
		return true
	}
	return false
}

// advanceOver moves pos past b, as pos.Advance(string(b)) does, without
// copying b (utf8.RuneCount copies text that is not ASCII, too).
func advanceOver(pos *Position, b []byte) {
	pos.Offset += len(b)
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		pos.Line += bytes.Count(b, []byte{'\n'})
		pos.Column = 1
		b = b[k+1:]
	}
	for i := 0; i < len(b); pos.Column++ {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
}

// strayRun returns the length of the run of unexpected characters that b,
// at offset off of the source, starts with: bytes that begin no token,
// white space, separator, comment or string, and runes other than ASCII,
// quotes included where noCloserUntil (the scanner's) says that they close
// no string (any other quote is left to the scanner, since it may open
// one). It never spans a newline.
func strayRun(b []byte, off int, noCloserUntil map[rune]int) int {
	n := 0
	for n < len(b) {
		c := b[n]
		if c < utf8.RuneSelf && c != '\'' {
			if isLetter(c) || isDigit(c) || notStray(c) {
				break
			}
			n++
			continue
		}
		r, size := utf8.DecodeRune(b[n:])
		if isOtherQuote(r) && off+n >= noCloserUntil[r] {
			break
		}
		n += size
	}
	return n
}

// quoteHint is the hint for a string opened with r, a quote other than
// the plain double quote.
func quoteHint(r rune) string {
	switch r {
	case '\'':
		return "strings use double quotes"
	case '\u201c', '\u201d':
		return "use a plain double quote \""
	}
	return "strings use plain double quotes \" (a word processor or PDF curls them)"
}

// isOtherQuote reports whether r opens a string as another language or a
// word processor quotes it: ', “, „, ‘ or ‚.
func isOtherQuote(r rune) bool {
	switch r {
	case '\'', '\u201c', '\u201e', '\u2018', '\u201a':
		return true
	}
	return false
}

// quotedOtherwise reports the length of the string at the start of b when
// it opens with r, a single quote or a curly one, and is closed on the same
// line by the same single quote or a curly closing one.
func quotedOtherwise(b []byte, r rune) (int, bool) {
	var closers [2]rune
	switch r {
	case '\'':
		closers = [2]rune{'\'', '\''}
	case '\u201c', '\u201e':
		closers = [2]rune{'\u201d', '\u201c'}
	case '\u2018', '\u201a':
		closers = [2]rune{'\u2019', '\u2018'}
	default:
		return 0, false
	}
	for n := utf8.RuneLen(r); n < len(b); {
		c, size := utf8.DecodeRune(b[n:])
		if c == '\n' {
			return 0, false
		}
		n += size
		if c == closers[0] || c == closers[1] {
			return n, true
		}
	}
	return 0, false
}

// startsLine reports whether only blanks precede offset on its line.
func startsLine(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' && src[i] != '\r' {
			return false
		}
	}
	return true
}

// endsWithComma reports whether the last token is a comma.
func endsWithComma(toks []lexer.Token) bool {
	if len(toks) == 0 {
		return false
	}
	last := toks[len(toks)-1]
	return last.Type == tokPunct && last.Value == ","
}

// endsWithOperator reports whether the last token is a binary operator
// of arithmetic, + - * /, which no statement ends with (a - may also be a
// sign, which needs what follows as much).
func endsWithOperator(toks []lexer.Token) bool {
	if len(toks) == 0 {
		return false
	}
	last := toks[len(toks)-1]
	return last.Type == tokPunct && (last.Value == "+" || last.Value == "-" || last.Value == "*" || last.Value == "/")
}

// endsWithConnective reports whether the last token leaves a where
// condition unfinished: where, and, or, not, or a comparison operator.
func endsWithConnective(toks []lexer.Token) bool {
	if len(toks) == 0 {
		return false
	}
	switch last := toks[len(toks)-1]; last.Type {
	case tokIdent:
		return last.Value == "where" || last.Value == "and" || last.Value == "or" || last.Value == "not"
	case tokPunct:
		return strings.ContainsAny(last.Value, "<>!") || last.Value == "=="
	}
	return false
}

// endsWithGiven reports whether the last token is the word given, which
// a predict's given values follow.
func endsWithGiven(toks []lexer.Token) bool {
	return len(toks) > 0 && toks[len(toks)-1].Type == tokIdent && toks[len(toks)-1].Value == "given"
}

func isLetter(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// IsName reports whether s is written as a name: a letter or _, then
// letters, digits and _. A column whose name is not one is written as a
// string, as in m.C["my col", income].
func IsName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && (i == 0 || !isDigit(s[i])) {
			return false
		}
	}
	return s != ""
}

// numberLength is the length of the number at the start of b:
// digits, an optional fraction and an optional exponent.
func numberLength(b []byte) int {
	n := 0
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	if n < len(b) && b[n] == '.' {
		n++
		for n < len(b) && isDigit(b[n]) {
			n++
		}
	}
	if n < len(b) && (b[n] == 'e' || b[n] == 'E') {
		m := n + 1
		if m < len(b) && (b[m] == '+' || b[m] == '-') {
			m++
		}
		if m < len(b) && isDigit(b[m]) {
			for m < len(b) && isDigit(b[m]) {
				m++
			}
			n = m
		}
	}
	return n
}

// stringLength is the length of the string literal at the start of b
// (which begins with '"') and whether it is closed on the same line.
func stringLength(b []byte) (int, bool) {
	for n := 1; n < len(b); n++ {
		switch b[n] {
		case '\\':
			if n+1 < len(b) && b[n+1] != '\n' {
				n++
			}
		case '"':
			return n + 1, true
		case '\n':
			return n, false
		}
	}
	return len(b), false
}

// looksLikeWindowsPath reports whether a string with an invalid escape is
// a Windows path pasted as it is ("C:\data\gss.csv", "data\gss.csv"): a
// drive, or a backslash before a letter that starts no escape.
func looksLikeWindowsPath(text string) bool {
	if strings.Contains(text, `:\`) {
		return true
	}
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\\' {
			if c := text[i+1]; isLetter(c) && !strings.ContainsRune("abfnrtvxuU", rune(c)) {
				return true
			}
			i++
		}
	}
	return false
}
