package kernel

import (
	"reflect"
	"testing"
)

func TestGlobRegexp(t *testing.T) {
	tests := []struct {
		pattern, input string
		match          bool
	}{
		{"fit*", "fit m with hmc()", true},
		{"fit*", "refit", false},
		{"*hmc*", "fit m with hmc()", true},
		{"f?t", "fit", true},
		{"f?t", "fiit", false},
		{"[fg]it", "git", true},
		{"[!f]it", "fit", false},
		{"[!f]it", "kit", true},
		{"a.b", "a.b", true},
		{"a.b", "axb", false},
		{"[", "[", true},
		{"*", "multi\nline", true},
		{"(x)+", "(x)+", true},
	}
	for _, tc := range tests {
		if got := globRegexp(tc.pattern).MatchString(tc.input); got != tc.match {
			t.Errorf("glob %q on %q = %v, want %v", tc.pattern, tc.input, got, tc.match)
		}
	}
}

func TestSelectHistory(t *testing.T) {
	all := []historyEntry{{1, "data d = load(\"x\")", nil}, {2, "fit m", nil}, {3, "summary m.C", nil}, {4, "fit m", nil}, {5, "plot trace m.C[1,2]", nil}}
	n := func(i int) *int { return &i }
	tests := []struct {
		name  string
		req   historyRequest
		lines []int
	}{
		{"tail 2", historyRequest{HistAccessType: "tail", N: n(2)}, []int{4, 5}},
		{"tail all", historyRequest{HistAccessType: "tail", N: n(100)}, []int{1, 2, 3, 4, 5}},
		{"tail without n", historyRequest{HistAccessType: "tail"}, []int{1, 2, 3, 4, 5}},
		{"range", historyRequest{HistAccessType: "range", Session: 0, Start: 2, Stop: n(4)}, []int{2, 3}},
		{"range to end", historyRequest{HistAccessType: "range", Session: 1, Start: 4}, []int{4, 5}},
		{"range other session", historyRequest{HistAccessType: "range", Session: 7, Start: 1}, nil},
		{"search", historyRequest{HistAccessType: "search", Pattern: "fit*"}, []int{2, 4}},
		{"search unique", historyRequest{HistAccessType: "search", Pattern: "fit*", Unique: true}, []int{4}},
		{"search last n", historyRequest{HistAccessType: "search", Pattern: "*m*", N: n(2)}, []int{4, 5}},
		{"unknown type", historyRequest{HistAccessType: "nonsense"}, nil},
	}
	for _, tc := range tests {
		var lines []int
		for _, h := range selectHistory(all, tc.req) {
			lines = append(lines, h.line)
		}
		if !reflect.DeepEqual(lines, tc.lines) {
			t.Errorf("%s: lines %v, want %v", tc.name, lines, tc.lines)
		}
	}
}
