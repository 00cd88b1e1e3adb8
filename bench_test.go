package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchDispatch(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, "which benchmark? hough or samplers"},
		{[]string{"nope"}, `unknown benchmark "nope" (want hough or samplers)`},
		{[]string{"hough", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"hough", "--burn-in", "-1"}, "--burn-in: -1 is negative"},
		{[]string{"hough", "--n", "0"}, `--n: "0" is not a positive integer`},
		{[]string{"hough", "--method", "fast"}, `unknown method "fast"`},
		{[]string{"samplers", "--methods", "gibbs,fast"}, `--methods: unknown method "fast" (want gibbs, hmc, px or interweave)`},
		{[]string{"samplers", "--setups", "4:1"}, `--setups: "4:1" is not p:k:levels`},
		{[]string{"samplers", "--iter", "0"}, "--iter 0: want at least 1"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := runBench(tc.args, &out)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("bench %q: error %v, want one containing %q", tc.args, err, tc.wantErr)
		}
	}
}

// TestBenchOutput runs each benchmark on a tiny problem: --json gives one
// object per configuration, the table a header and one row each.
func TestBenchOutput(t *testing.T) {
	tests := []struct {
		args    []string
		methods []string // in the order of the rows
		skipped []bool
	}{
		{[]string{"hough", "--n", "60", "--levels", "3,n", "--method", "kinetic,hough", "--min-time", "1ms", "--min-transitions", "1"},
			[]string{"kinetic", "kinetic", "hough", "hough"}, []bool{false, false, false, false}},
		{[]string{"samplers", "--n", "60", "--iter", "20", "--setups", "4:0:3"},
			[]string{"gibbs", "hmc", "px", "interweave"}, []bool{false, false, true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.args[0], func(t *testing.T) {
			var out bytes.Buffer
			if err := runBench(append(tc.args, "--json"), &out); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != len(tc.methods) {
				t.Fatalf("%d JSON lines, want %d:\n%s", len(lines), len(tc.methods), out.String())
			}
			for i, l := range lines {
				var row struct {
					Method  string `json:"method"`
					Skipped string `json:"skipped"`
				}
				if err := json.Unmarshal([]byte(l), &row); err != nil {
					t.Fatalf("line %d: %v: %s", i+1, err, l)
				}
				if row.Method != tc.methods[i] || (row.Skipped != "") != tc.skipped[i] {
					t.Errorf("line %d: method %q skipped %q, want %q skipped %v", i+1, row.Method, row.Skipped, tc.methods[i], tc.skipped[i])
				}
			}

			out.Reset()
			if err := runBench(tc.args, &out); err != nil {
				t.Fatal(err)
			}
			lines = strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != len(tc.methods)+1 || !strings.HasPrefix(lines[0], "method") || !strings.HasSuffix(lines[0], "note") {
				t.Fatalf("table:\n%s\nwant a header and %d rows", out.String(), len(tc.methods))
			}
			for i, l := range lines[1:] {
				if f := strings.Fields(l); f[0] != tc.methods[i] || strings.Contains(l, "skipped:") != tc.skipped[i] {
					t.Errorf("row %d: %q, want method %s (skipped %v)", i+1, l, tc.methods[i], tc.skipped[i])
				}
			}
		})
	}
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := orList(tc.words); got != tc.want {
			t.Errorf("orList(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}
