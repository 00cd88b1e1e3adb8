package dsl

import "errors"

// IsComplete tells a console or the Jupyter kernel whether src is ready to
// run: "complete" if it parses (empty input included), "incomplete" if a
// '{', '(' or '[' is still open (more lines may close it) or if its last
// line ends with a comma and only the rest of the statement is missing (as
// in "fit m, iter = 20,"), or with + - * / (as in "summary a.C -"), or with
// where, and, or, not or a comparison in a where condition (as in "data d =
// gss where age >= 50 and"), and
// "invalid" if
// it has a syntax error that more input cannot fix, such as a string left
// open, inside brackets too: a string ends on its line, so no next line can
// close it, and a console that waited for one would wait for ever. Every
// lexical error is such an error, since each is within its line.
func IsComplete(src string) string {
	status, _ := Completeness(src)
	return status
}

// GoesOn reports whether src's last token (comments after it aside)
// leaves its statement open for the next line: a comma, + - * /, a where
// condition's where, and, or, not or comparison, or predict's given. A
// console indents the next line for it.
func GoesOn(src string) bool {
	res := scanRange([]byte(src), Position{Line: 1, Column: 1}, len(src), keepLast)
	return res.openList || res.openOperator || res.openWhere
}

// Completeness is IsComplete with the number of braces still open (for the
// next line's indent); brackets in comments and strings do not count. An
// answer for open brackets costs two linear scans (of the brackets, and of
// the tokens for a lexical error); the others also a parse, which the
// nesting limit keeps linear.
func Completeness(src string) (status string, openBraces int) {
	st := scanBrackets("", []byte(src))
	if st.tooDeep != nil {
		return "invalid", 0
	}
	if len(st.open) > 0 {
		// load("x.cs, then Enter: the string ends with the line, and a
		// next line "]) would open another, so no line ever closes the
		// brackets; each lexical error is final once its line is.
		if scanRange([]byte(src), Position{Line: 1, Column: 1}, len(src), keepLast).err != nil {
			return "invalid", 0
		}
		return "incomplete", st.openBraces()
	}
	_, err := Parse("", []byte(src))
	switch {
	case err == nil:
		return "complete", 0
	case st.last == ',' && onlyAtEnd(err, len(src), st.lastOffset+1):
		return "incomplete", 0
	case onlyAtEnd(err, len(src), st.lastOffset+1):
		// data older = gss where age >= 50 and, then Enter: the
		// condition goes on on the next line; so does an expression
		// after summary a.C -.
		if res := scanRange([]byte(src), Position{Line: 1, Column: 1}, len(src), keepLast); res.openWhere || res.openOperator {
			return "incomplete", 0
		}
	}
	return "invalid", 0
}

// onlyAtEnd reports whether err is one error, at the end of a source of n
// bytes or just after its last token (at afterLast, where the error of a
// source that ends with a comma, an operator, given or a where
// condition's connective puts its caret): one that more lines may mend.
func onlyAtEnd(err error, n, afterLast int) bool {
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		return false
	}
	return list[0].Pos.Offset == n || list[0].Pos.Offset == afterLast
}

// StatementStart returns the offset in src where the statement or model
// item that src ends in begins: just after the last newline or ';' that
// ends one. Newlines inside ( ) or [ ] and after a comma do not end a
// statement, so for "fit m, iter = 20,\n  war" it is 0, where the last
// newline would say "  war". Completion uses it to know which statement's
// settings to offer. It scans all of src.
func StatementStart(src string) int {
	start := 0
	for _, t := range scan("", []byte(src)).tokens {
		if t.Type == tokSep {
			start = t.Pos.Offset + 1
		}
	}
	return start
}
