package compiler

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/copulang/copulang/dsl"
)

// Defaults of fit (sbgcop-like).
const (
	DefaultIter   = 1000
	DefaultChains = 4
	DefaultSeed   = 1
	DefaultThin   = 1
	// DefaultTravelTime is the exact-HMC travel time T = π/2 of K&S and hmc-tmg.
	DefaultTravelTime = math.Pi / 2
)

// DefaultProb is the probability of the central intervals of summary and
// impute: the 5% and 95% quantiles.
const DefaultProb = 0.9

// DefaultWarmup is the warm-up length when only iter is given: iter/2.
func DefaultWarmup(iter int) int { return iter / 2 }

// maxErrors bounds the errors reported for one file.
const maxErrors = 20

// Check checks a parsed file against the session's bindings (env may be
// nil) and the bindings its own earlier statements make, and returns the
// checked program. On failure the error is a dsl.ErrorList of every problem
// found (up to 20), with positions and hints, and the program is nil.
func Check(file *dsl.File, env Env) (*Program, error) {
	c := &checker{env: env, local: map[string]*local{}, writes: map[string]bool{}, loads: map[string]loaded{}, bindings: map[string][]binding{}}
	for _, s := range file.Stmts {
		switch s := s.(type) {
		case *dsl.DataStmt:
			c.bindings[s.Name.Name] = append(c.bindings[s.Name.Name], binding{"data", s.Pos})
		case *dsl.ModelStmt:
			c.bindings[s.Name.Name] = append(c.bindings[s.Name.Name], binding{"model", s.Pos})
		}
	}
	prog := &Program{}
	for _, s := range file.Stmts {
		if ir := c.stmt(s); ir != nil {
			prog.Stmts = append(prog.Stmts, ir)
		}
	}
	if len(c.errs) > 0 {
		c.errs.Sort()
		if len(c.errs) > maxErrors {
			c.errs = c.errs[:maxErrors]
		}
		return nil, c.errs
	}
	return prog, nil
}

// checker holds the state of one Check.
type checker struct {
	env   Env
	errs  dsl.ErrorList
	local map[string]*local
	// writes holds the paths that earlier statements write, which a later
	// load may read only once they have run.
	writes map[string]bool
	// loads holds the files that earlier statements load, by the file
	// they resolve to (resolve), which a later statement may not write.
	loads map[string]loaded
	// bindings holds where the file's data and model statements bind
	// each name, so that a name used before the line that binds it (fit
	// m above model m, as a notebook's cells run out of order) can say so.
	bindings map[string][]binding
}

// loaded is a load of the file being checked: the data set it binds and
// where.
type loaded struct {
	data string
	at   dsl.Position
}

// resolve returns the file path names, as the env resolves it
// (PathResolver), else cleaned.
func (c *checker) resolve(path string) string {
	if r, ok := c.env.(PathResolver); ok {
		return r.Resolve(path)
	}
	return filepath.Clean(path)
}

// binding is a data or model statement of the file being checked.
type binding struct {
	kind string // "data" or "model"
	at   dsl.Position
}

// local is a binding made by an earlier statement of the file being checked.
type local struct {
	b Binding
	// pending is true when the shape is unknown: data loaded in this file,
	// or a model declared on such data.
	pending bool
	fitted  bool
	// made is the statement that bound a data set (nil after an error),
	// from which a Deriver makes it again to derive data from it.
	made Stmt
}

func (c *checker) errorf(pos dsl.Position, hint, format string, args ...any) {
	c.errs = append(c.errs, &dsl.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// stmt checks one statement. The checks live by what they check: data.go
// (data), model.go (model), fit.go (fit), output.go (explain, summary,
// plot, impute, export, show), modelcheck.go (check, compare); what they
// share is in names.go (bindings), args.go (calls and their arguments),
// eval.go (numbers), refs.go (references to parts of a fit) and derived.go
// (the members computed from the draws: partial, communality, regress). A statement added to the grammar (see
// dsl's statements) needs its case here.
func (c *checker) stmt(s dsl.Stmt) Stmt {
	if st, handled := c.valueStmt(s); handled {
		return st
	}
	switch s := s.(type) {
	case *dsl.DataStmt:
		return c.data(s)
	case *dsl.ModelStmt:
		return c.model(s)
	case *dsl.ExplainStmt:
		return c.explain(s)
	case *dsl.FitStmt:
		return c.fit(s)
	case *dsl.ExtendStmt:
		return c.extend(s)
	case *dsl.SummaryStmt:
		return c.summary(s)
	case *dsl.PlotStmt:
		return c.plot(s)
	case *dsl.ImputeStmt:
		return c.impute(s)
	case *dsl.PredictStmt:
		return c.predict(s)
	case *dsl.ExportStmt:
		return c.export(s)
	case *dsl.ShowStmt:
		return c.show(s)
	case *dsl.CheckStmt:
		return c.check(s)
	case *dsl.CompareStmt:
		return c.compare(s)
	}
	start, _ := s.Span()
	c.errorf(start, "", "statement %T is not supported yet", s)
	return nil
}
