package main

// `copulang bench NAME [flags]`: the benchmark subcommands and what they
// share (flags, printing rows as a table or as JSON lines).

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
)

// benchmark is one `copulang bench` subcommand.
type benchmark struct {
	name  string
	about string
	run   func(args []string, stdout io.Writer) error
}

// benchmarks lists the subcommands of `copulang bench`; it is the one place
// where a benchmark is added. A benchmark parses its flags with
// newBenchFlags and prints its results through a benchTable.
func benchmarks() []benchmark {
	return []benchmark{
		{"cost", "CPU time per iteration of gibbs and px on one core, beside the cost model's estimate, alternated with a reference run", benchCost},
		{"hough", "exact-HMC transitions of one ordinal column, kinetic against Hough-envelope search", benchHough},
		{"mixing", "autocorrelation times of C's entries under gibbs and hmc on equicorrelated data, beside auto's mixing model", benchMixing},
		{"paper", "Kalaitzis & Silva's experiment: interweave, px and px with bfa's defect, per setup and seed; --report compares them", benchPaper},
		{"samplers", "the samplers on data simulated from a factor copula: time, ESS per second, time to R-hat < 1.01, RMSE to the truth, auto's choice", benchSamplers},
	}
}

// runBench dispatches `copulang bench NAME [flags]`.
func runBench(args []string, stdout io.Writer) error {
	all := benchmarks()
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = b.name
	}
	if len(args) == 0 {
		return fmt.Errorf("which benchmark? %s", orList(names))
	}
	for _, b := range all {
		if b.name == args[0] {
			return b.run(args[1:], stdout)
		}
	}
	return fmt.Errorf("unknown benchmark %q (want %s)", args[0], orList(names))
}

// benchUsage lists the benchmarks for `copulang help`.
func benchUsage() string {
	var b strings.Builder
	for _, bm := range benchmarks() {
		fmt.Fprintf(&b, "      %-9s %s\n", bm.name, bm.about)
	}
	return b.String()
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// benchFlags are the flags every benchmark takes.
type benchFlags struct {
	*flag.FlagSet
	json bool
	seed uint64
}

// newBenchFlags returns the flag set of `copulang bench NAME` with the
// shared flags --json and --seed defined; the benchmark adds its own.
func newBenchFlags(name string, stdout io.Writer) *benchFlags {
	fs := &benchFlags{FlagSet: flag.NewFlagSet("bench "+name, flag.ContinueOnError)}
	fs.SetOutput(stdout)
	fs.BoolVar(&fs.json, "json", false, "print one JSON object per line")
	fs.Uint64Var(&fs.seed, "seed", 1, "seed of the random numbers")
	return fs
}

// parse parses the command line, which takes flags only.
func (fs *benchFlags) parse(args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

// benchColumn is a column of a benchmark's text table: its header and its
// width. The first and last columns are aligned left, the others right.
type benchColumn struct {
	header string
	width  int
}

// benchRow is one result of a benchmark: marshalled as it is with --json,
// printed as cells (one per column) otherwise.
type benchRow interface {
	cells() []string
}

// benchTable prints a benchmark's results as each one arrives (a run can
// take minutes): one JSON object per line with --json, otherwise a row of a
// table with fixed column widths under a header, so that rows line up
// without waiting for the last one.
type benchTable struct {
	w       io.Writer
	json    bool
	columns []benchColumn
}

// newBenchTable returns the table of a benchmark's results, having printed
// its header unless the results go out as JSON.
func newBenchTable(w io.Writer, fs *benchFlags, columns ...benchColumn) (*benchTable, error) {
	t := &benchTable{w: w, json: fs.json, columns: columns}
	if t.json {
		return t, nil
	}
	headers := make([]string, len(columns))
	for i, c := range columns {
		headers[i] = c.header
	}
	return t, t.line(headers)
}

// write prints one result.
func (t *benchTable) write(r benchRow) error {
	if t.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(t.w, string(b))
		return err
	}
	return t.line(r.cells())
}

// line prints one line of the text table.
func (t *benchTable) line(cells []string) error {
	var b strings.Builder
	for i, c := range t.columns {
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		w := max(c.width, len(c.header))
		switch {
		case i == len(t.columns)-1:
			b.WriteString(cell)
		case i == 0:
			fmt.Fprintf(&b, "%-*s", w, cell)
		default:
			fmt.Fprintf(&b, "%*s", w, cell)
		}
		if i < len(t.columns)-1 {
			b.WriteString("  ")
		}
	}
	_, err := fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
	return err
}
