package dsl

// IsComplete tells a console or the Jupyter kernel whether src is ready to
// run: "complete" if it parses (empty input included), "incomplete" if a
// '{', '(' or '[' is still open (more lines may close it), and "invalid" if
// it has a syntax error that more input cannot fix, such as a string left
// open outside any bracket: a string ends on its line, so no next line can
// close it, and a console that waited for one would wait for ever.
func IsComplete(src string) string {
	status, _ := Completeness(src)
	return status
}

// Completeness is IsComplete with the number of braces still open (for the
// next line's indent); brackets in comments and strings do not count. An
// incomplete answer costs one linear scan; complete and invalid ones also
// a parse, which the nesting limit keeps linear.
func Completeness(src string) (status string, openBraces int) {
	st := scanBrackets("", []byte(src))
	if st.tooDeep != nil {
		return "invalid", 0
	}
	if len(st.open) > 0 {
		return "incomplete", st.openBraces()
	}
	if _, err := Parse("", []byte(src)); err != nil {
		return "invalid", 0
	}
	return "complete", 0
}
