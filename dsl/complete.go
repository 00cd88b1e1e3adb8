package dsl

// IsComplete tells a console or the Jupyter kernel whether src is ready to
// run: "complete" if it parses (empty input included), "incomplete" if a
// '{', '(' or '[' is still open or a string runs to the end of the input
// (more lines may finish it), and "invalid" if it has a syntax error that
// more input cannot fix.
func IsComplete(src string) string {
	s := scan("", []byte(src))
	if s.openString || len(s.open) > 0 {
		return "incomplete"
	}
	if _, err := Parse("", []byte(src)); err != nil {
		return "invalid"
	}
	return "complete"
}
