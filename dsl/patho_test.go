package dsl

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// pathological returns the inputs of issue 16 that once made parsing
// superlinear or unbounded: deeply nested brackets, and a 1.2 MB model
// block that is never closed; and a megabyte of minus signs, each a level
// of the parser's recursion, which overflowed the stack (a fatal error,
// which killed the kernel).
func pathological() map[string]string {
	var model strings.Builder
	model.WriteString("model m {\n")
	for model.Len() < 1200000 {
		model.WriteString("  Y = gss[income, degree]\n  Z ~ GaussianCopula(C)\n  C ~ LKJ(eta = 2)\n")
	}
	return map[string]string{
		"parens-40k":     strings.Repeat("(", 40000),
		"parens-100k":    strings.Repeat("(", 100000),
		"unclosed-model": model.String(),
		"nested-lists":   "data d = load(\"x\", order = {a: " + strings.Repeat("[", 5000) + "})",
		// Each '-' after the first recurses in the parser as a bracket
		// does: a million of them overflowed the goroutine's stack.
		"minus-1m": "print " + strings.Repeat("-", 1000000) + "1",
		// Every lexical error of a statement is reported: a run of
		// unexpected characters is one error, taken at once, and a line
		// of opening quotes with no closing one is searched once, not
		// once a quote; after a lexical error the scan keeps no tokens,
		// since none is parsed. BenchmarkPathological: unexpected-1m
		// 20-35 ms and 3 MB to parse (175-195 ms and 34 MB before),
		// quotes-300k 60-65 ms and 4 MB (435-470 ms and 87 MB), on a
		// machine shared with other work.
		"unexpected-1m": "print " + strings.Repeat("?", 1000000),
		"quotes-300k":   "print " + strings.Repeat("„", 300000) + "\nprint " + strings.Repeat("'", 300001),
	}
}

func BenchmarkPathological(b *testing.B) {
	for name, src := range pathological() {
		b.Run(name+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse("", []byte(src))
			}
		})
		b.Run(name+"/is_complete", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				IsComplete(src)
			}
		})
	}
}

// TestPathologicalInputsAreRefusedQuickly checks the errors of the inputs
// above; their cost is measured by BenchmarkPathological (the issue's
// target: each under 100 ms and 50 MB).
func TestPathologicalInputsAreRefusedQuickly(t *testing.T) {
	want := map[string]string{
		"parens-40k":     "1:101: brackets nest deeper than 100 levels",
		"parens-100k":    "1:101: brackets nest deeper than 100 levels",
		"unclosed-model": `unexpected end of input (expected "}")`,
		"nested-lists":   "brackets nest deeper than 100 levels",
		"minus-1m":       "1:107: more than 100 minus signs in a row",
		"unexpected-1m":  `1:7: unexpected characters "????????????????????"… (1000000 in a row)`,
		"quotes-300k":    "1:7: unexpected characters \"„„„„„„„„„„„„„„„„„„„„\"… (300000 in a row)\n2:7: unexpected character '\\''\n2:9: unexpected character '\\''",
	}
	for name, src := range pathological() {
		_, err := Parse("", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: %v, want %q", name, err, want[name])
		}
		if got := IsComplete(src); got != map[bool]string{true: "incomplete", false: "invalid"}[name == "unclosed-model"] {
			t.Errorf("%s: IsComplete = %s", name, got)
		}
	}
}

// TestPathologicalInputsAllocateLittle: refusing a megabyte of stray
// characters or a line of quotes allocates a few bytes per byte of source
// (the copies of the text scanned), not tokens for every character or
// string after the first error: the scanner reserved 16 bytes of tokens
// per byte of source, twice, for a megabyte of ? (34 per byte in all), and
// kept the 150,000 strings of a line of single quotes, twice (73 per byte).
// Bytes, unlike time, do not depend on the machine's load.
func TestPathologicalInputsAllocateLittle(t *testing.T) {
	const perByte = 8
	inputs := pathological()
	for _, name := range []string{"unexpected-1m", "quotes-300k"} {
		src := []byte(inputs[name])
		for _, run := range []struct {
			what string
			f    func()
		}{
			{"Parse", func() { Parse("", src) }},
			{"IsComplete", func() { IsComplete(inputs[name]) }},
		} {
			run.f() // anything done once, before measuring
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			run.f()
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > perByte*uint64(len(src)) {
				t.Errorf("%s of %s allocates %.1f MB, %.1f bytes per byte of its %d; want at most %d",
					run.what, name, float64(got)/1e6, float64(got)/float64(len(src)), len(src), perByte)
			}
		}
	}
}

// TestNotStrayAgreesWithTheScanner: the bytes notStray lists are those
// the scanner reads as white space, a separator, a comment, a string, a
// quote or punctuation, so that a run of stray characters ends where the
// scanner would read something else.
func TestNotStrayAgreesWithTheScanner(t *testing.T) {
	for c := range byte(utf8.RuneSelf) {
		if isLetter(c) || isDigit(c) {
			continue
		}
		want := strings.IndexByte(" \t\r\f\v\n;#\"'"+punctuation, c) >= 0
		if notStray(c) != want {
			t.Errorf("notStray(%q) = %v, want %v", c, notStray(c), want)
		}
	}
}

// FuzzCompleteness checks on any input that the bracket pass and the
// scanner agree: IsComplete never panics, never calls a source complete
// that does not parse, and Parse refuses too-deep nesting with a positioned
// error.
func FuzzCompleteness(f *testing.F) {
	for _, s := range []string{"model m {", "# {\nfit m", `"{"`, "((((", "m.C[1, 2]", "print \"a\", 1", "}", "fit m, iter = 20,\n# more\n", "fit m,,"} {
		f.Add(s)
	}
	f.Add(strings.Repeat("[", MaxNesting+1))
	f.Fuzz(func(t *testing.T, src string) {
		status, braces := Completeness(src)
		_, err := Parse("", []byte(src))
		switch status {
		case "complete":
			if err != nil {
				t.Fatalf("complete but Parse fails: %v", err)
			}
		case "incomplete":
			if braces < 0 || braces > MaxNesting {
				t.Fatalf("%d open braces", braces)
			}
		case "invalid":
			if err == nil {
				t.Fatal("invalid but Parse succeeds")
			}
		default:
			t.Fatalf("status %q", status)
		}
		// Too deep: Parse refuses, and says so unless it reports an earlier
		// error first (the scanner keeps the first error in the source).
		if st := scanBrackets("", []byte(src)); st.tooDeep != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("too deep, but Parse says %v", err)
			}
			if list[0].Pos.Offset >= st.tooDeep.Pos.Offset && !strings.Contains(err.Error(), "nest deeper") {
				t.Fatalf("too deep, but Parse says %v", err)
			}
		}
	})
}

func TestSnippetOfALongLine(t *testing.T) {
	src := []byte(strings.Repeat("(", 40000))
	_, err := Parse("", src)
	var errs ErrorList
	if !errors.As(err, &errs) {
		t.Fatalf("%v", err)
	}
	snip := errs[0].Snippet(src)
	lines := strings.Split(snip, "\n")
	if len(snip) > 1000 || !strings.HasSuffix(lines[0], "…") || strings.Index(lines[1], "^") != 61 {
		t.Errorf("snippet of a 40,000-character line:\n%s", snip)
	}
}

// TestSnippetCaretUnderWideCharacters: the caret stands under the error's
// rune when wide characters (CJK, emoji) or combining marks come before it
// on the line; it was placed by runes, so after "数据名称" it stood four
// columns short (found driving the kernel with unicode cells).
func TestSnippetCaretUnderWideCharacters(t *testing.T) {
	for _, tc := range []struct{ line, at string }{
		{`print "数据名称", nosuch`, "nosuch"},
		{`print "🙂🙂", nosuch`, "nosuch"},
		{"print \"e\u0301te\u0301\", nosuch", "nosuch"}, // e and a combining acute
		{`print "ｆｕｌｌ", nosuch`, "nosuch"},              // fullwidth letters
		{`print "abc", nosuch`, "nosuch"},
	} {
		runes := []rune(tc.line)
		col := len([]rune(tc.line[:strings.Index(tc.line, tc.at)])) + 1
		e := &Error{Pos: Position{Line: 1, Column: col, Offset: strings.Index(tc.line, tc.at)}, Msg: "unknown name"}
		lines := strings.Split(e.Snippet([]byte(tc.line)), "\n")
		// The expected column: the display width of what comes before.
		want := 0
		for _, r := range runes[:col-1] {
			switch {
			case r == '\u0301':
			case r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 || r >= 0xf900 && r <= 0xfaff || r >= 0xff00 && r <= 0xff60 || r >= 0x1f300 && r <= 0x1f64f):
				want += 2
			default:
				want++
			}
		}
		if got := strings.Index(lines[1], "^"); got != want {
			t.Errorf("%q: caret at column %d, want %d:\n%s\n%s", tc.line, got, want, lines[0], lines[1])
		}
	}
}

// TestMinusSigns: up to MaxNesting '-' in a row parse, wherever spaces,
// comments and (inside brackets) line breaks fall between them; one more is
// an error at the sign too many; a statement's end starts the count again.
func TestMinusSigns(t *testing.T) {
	signs := func(n int, between string) string {
		return strings.TrimSuffix(strings.Repeat("-"+between, n), between)
	}
	tests := []struct{ src, want string }{
		{"print " + signs(MaxNesting, "") + "1", ""},
		{"print 1 " + signs(MaxNesting+1, " ") + "1", "1:209: more than 100 minus signs in a row"},
		{"print (" + signs(MaxNesting-1, " # c\n") + "\n-1)", ""},
		{"print (" + signs(MaxNesting, "\n") + "\n-1)", "101:1: more than 100 minus signs in a row"},
		{"print " + signs(MaxNesting, "") + "1\nprint " + signs(MaxNesting, "") + "1", ""},
		{"print " + signs(MaxNesting/2, "") + "(" + signs(MaxNesting, "") + "1)", ""},
	}
	for i, tt := range tests {
		_, err := Parse("", []byte(tt.src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("case %d: Parse error %q, want %q", i, got, tt.want)
		}
	}
}
