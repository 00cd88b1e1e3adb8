package dsl

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// bracketState is what a cheap pass over a source learns about its
// brackets, skipping comments and strings as the scanner does but keeping no
// tokens: it is linear in time, allocates only for open brackets, and lets
// IsComplete and Parse answer for a source that is unfinished or too deeply
// nested without tokenising or parsing it.
type bracketState struct {
	open       []bracket // brackets still open at the end (at most MaxNesting)
	openString bool      // a string literal runs to the end
	tooDeep    *Error    // set when brackets nest deeper than MaxNesting
	end        Position  // the position just after the source
	// last is the last byte outside comments and white space ('"' for a
	// string), 0 if none: a ',' means the statement goes on.
	last byte
	// lastOffset is the offset of last.
	lastOffset int
}

// scanBrackets runs the pass over src.
func scanBrackets(filename string, src []byte) bracketState {
	var st bracketState
	lineStart, line := 0, 1
	posAt := func(off int) Position {
		return Position{Filename: filename, Offset: off, Line: line, Column: utf8.RuneCount(src[lineStart:off]) + 1}
	}
	// As in the lexer: the offset up to which a quote of each kind has no
	// closer on its line, and whether a /* has found no */ after it, so
	// that no run of quotes or /* is searched again and again.
	noCloserUntil := map[rune]int{}
	noBlockEnd := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v' && c != '#' {
			st.last, st.lastOffset = c, i
		}
		if c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*') {
			// // and /* ... */: the lexer reads each as one error to the
			// end of its line, or a /* to its */, so brackets inside them
			// do not count.
			n := bytes.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			if src[i+1] == '*' && !noBlockEnd {
				if e := bytes.Index(src[i+2:], []byte("*/")); e >= 0 {
					n = e + 4
				} else {
					noBlockEnd = true
				}
			}
			for _, b := range src[i : i+n] {
				if b == '\n' {
					line++
				}
			}
			if k := bytes.LastIndexByte(src[i:i+n], '\n'); k >= 0 {
				lineStart = i + k + 1
			}
			i += n - 1
			continue
		}
		if c == '\'' || c >= utf8.RuneSelf {
			// 'x(.csv' or “x(.csv”: the lexer reads a string closed on its
			// line by a single or curly quote as one error, so its
			// brackets do not count either.
			r, _ := utf8.DecodeRune(src[i:])
			if isOtherQuote(r) && i >= noCloserUntil[r] {
				if n, ok := quotedOtherwise(src[i:], r); ok {
					st.last = '"'
					i += n - 1
					continue
				}
				if eol := bytes.IndexByte(src[i:], '\n'); eol >= 0 {
					noCloserUntil[r] = i + eol
				} else {
					noCloserUntil[r] = len(src)
				}
			}
		}
		switch c {
		case '\n':
			line++
			lineStart = i + 1
		case '#':
			n := bytes.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			i += n - 1
		case '"':
			n, closed := stringLength(src[i:])
			if !closed && i+n == len(src) {
				st.openString = true
			}
			i += n - 1
		case '(', '[', '{':
			if len(st.open) == MaxNesting {
				st.tooDeep = &Error{Pos: posAt(i), Msg: fmt.Sprintf("brackets nest deeper than %d levels", MaxNesting),
					Hint: "split the expression, or close the brackets opened before"}
				return st
			}
			st.open = append(st.open, bracket{c, posAt(i)})
		case ')', ']', '}':
			if len(st.open) > 0 {
				st.open = st.open[:len(st.open)-1]
			}
		}
	}
	st.end = posAt(len(src))
	return st
}

// openBraces counts the braces among the open brackets.
func (st bracketState) openBraces() int {
	n := 0
	for _, b := range st.open {
		if b.char == '{' {
			n++
		}
	}
	return n
}
