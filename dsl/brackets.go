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
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v' && c != '#' {
			st.last, st.lastOffset = c, i
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
