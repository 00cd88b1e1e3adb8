package dsl

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Error is a syntax or checking error at a position in the source, with an
// optional hint such as "did you mean GaussianCopula?". Package compiler
// uses the same type for its errors.
type Error struct {
	Pos  Position
	Msg  string
	Hint string
	// Kind is the class of the error, as a notebook names it, when it is
	// not the caller's default (SyntaxError for Parse, CheckError for
	// compiler.Check): "DataError" for a data file that cannot be read.
	Kind string
}

// Error formats the error as file:line:col: msg, omitting the file name when
// it is empty. The hint is not included; see Snippet and ErrorList.Format.
func (e *Error) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

// Snippet returns the source line of the error, a line with a caret under
// the error's column, and the hint on its own line when there is one.
// src must be the text the position refers to.
func (e *Error) Snippet(src []byte) string {
	line, ok := sourceLine(src, e.Pos)
	var b strings.Builder
	if ok {
		line = strings.ReplaceAll(line, "\t", " ")
		col := max(e.Pos.Column, 1)
		line, col = clipLine(line, col)
		b.WriteString(line)
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", displayWidth(line, col-1)))
		b.WriteString("^\n")
	}
	if e.Hint != "" {
		b.WriteString("hint: ")
		b.WriteString(e.Hint)
		b.WriteByte('\n')
	}
	return b.String()
}

// displayWidth is how many columns of a terminal the first n runes of line
// take, so that a caret under them stands under the rune after them: two
// for East Asian wide and fullwidth characters (CJK, and the emoji Unicode
// gives that width), none for combining marks and zero-width characters,
// one for the rest.
func displayWidth(line string, n int) int {
	w := 0
	for _, r := range line {
		if n == 0 {
			break
		}
		n--
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200b' || r == '\u200d' || r == '\ufeff':
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

// isWide reports whether r takes two columns of a terminal.
func isWide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}

// snippetWidth is the most runes of a source line a snippet shows.
const snippetWidth = 120

// clipLine cuts a long line to snippetWidth runes around column col
// (1-based, in runes), marking the cuts with "…", and returns the column in
// the clipped line.
func clipLine(line string, col int) (string, int) {
	runes := []rune(line)
	if len(runes) <= snippetWidth {
		return line, col
	}
	start := min(max(col-1-snippetWidth/2, 0), len(runes)-snippetWidth)
	clipped := string(runes[start : start+snippetWidth])
	col -= start
	if start > 0 {
		clipped = "…" + clipped
		col++
	}
	if start+snippetWidth < len(runes) {
		clipped += "…"
	}
	return clipped, col
}

// sourceLine returns the text of the line pos is on, found by its line number.
func sourceLine(src []byte, pos Position) (string, bool) {
	if pos.Line < 1 {
		return "", false
	}
	for line := 1; line < pos.Line; line++ {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return "", false
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	return strings.TrimRight(string(src), "\r"), true
}

// ErrorList is a list of errors, sorted by position. Parse and
// compiler.Check return an ErrorList (never an empty one) when they fail.
type ErrorList []*Error

// Error prints the errors one per line, as file:line:col: msg.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Format prints each error followed by its snippet and hint, as a notebook
// or a terminal shows them.
func (l ErrorList) Format(src []byte) string {
	var b strings.Builder
	for _, e := range l {
		fmt.Fprintf(&b, "%s\n%s", e.Error(), e.Snippet(src))
	}
	return b.String()
}

// Sort orders the list by position (offset), keeping the order of errors at
// the same position.
func (l ErrorList) Sort() {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].Pos.Offset < l[j-1].Pos.Offset; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// Err returns l as an error, or nil if l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap lets errors.As find the individual errors.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
