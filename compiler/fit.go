package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// fit checks fit NAME [with METHOD(ARGS)] [, SETTING = VALUE ...]; the
// model counts as fitted for the statements after it.
func (c *checker) fit(s *dsl.FitStmt) Stmt {
	x, m := c.fitSettings(s, "fit")
	if x == nil {
		// A fit with a mistake in its settings still counts as fitting its
		// model, as a model whose declaration fails is still bound, so that
		// the statements after it are not reported as using an unfitted
		// model too.
		if b, _, _, found := c.lookup(s.Model.Name); found {
			if info, isModel := b.(*ModelInfo); isModel {
				c.markFitted(s.Model.Name, info)
			}
		}
		return nil
	}
	c.markFitted(x.Model, m)
	return x
}

// markFitted counts the model name, described by m, as fitted for the
// statements after this one.
func (c *checker) markFitted(name string, m *ModelInfo) {
	if l, isLocal := c.local[name]; isLocal {
		l.fitted = true
		return
	}
	info := *m
	info.Fitted = true
	c.local[name] = &local{b: &info, fitted: true}
}

// extend checks extend NAME [, iter = N]: the model must have been fitted.
func (c *checker) extend(s *dsl.ExtendStmt) Stmt {
	_, _, ok := c.modelBinding(s.Model, true, "extend")
	x := &Extend{At: s.Pos, Model: s.Model.Name}
	settings := settingsOf("extend")
	seen := map[string]bool{}
	for _, a := range s.Settings {
		otherwise := ""
		if a.Name.Name != "iter" && slices.Contains(settingsOf("fit"), a.Name.Name) {
			otherwise = "extend continues the fit's chains with its settings; to change " + a.Name.Name + ", fit the model again"
		}
		if !c.setting("extend", a, settings, seen, otherwise) {
			ok = false
			continue
		}
		switch a.Name.Name {
		case "iter":
			v, _, good := c.integerAtLeast(a.Value, numScope{}, "iter", minimum{value: 1, hint: "iter counts the further iterations of every chain"})
			ok = ok && good
			x.Iter = v
		case "ess":
			v, good := c.essTarget(a.Value)
			ok = ok && good
			x.ESS = v
		}
	}
	if !ok {
		return nil
	}
	return x
}

// fitSettings checks the model, method and settings of a fit statement
// (verb is "fit", or "explain" for explain fit ...) and returns the checked
// fit and the model, or nil after reporting errors.
func (c *checker) fitSettings(s *dsl.FitStmt, verb string) (*Fit, *ModelInfo) {
	m, _, ok := c.modelBinding(s.Model, false, verb)
	x := &Fit{
		At: s.Pos, Model: s.Model.Name, Method: "auto", TravelTime: DefaultTravelTime,
		Iter: DefaultIter, Chains: DefaultChains, Seed: DefaultSeed, Thin: DefaultThin, Warmup: -1,
	}
	if s.Method != nil {
		ok = c.method(s.Method, m, x) && ok
	}
	settings := settingsOf("fit")
	seen := map[string]bool{}
	for _, a := range s.Settings {
		name := a.Name.Name
		otherwise := ""
		if name == "T" || slices.Contains(Methods(), name) {
			otherwise = "the method and its arguments come after with, as in fit m with hmc(T = pi/2)"
		}
		if name == "method" || name == "sampler" || name == "algorithm" {
			// fit m, method = hmc: other tools take the sampler as a setting.
			otherwise = "the method comes after with, before the settings: fit m with hmc, iter = 2000"
		}
		if !c.setting("fit", a, settings, seen, otherwise) {
			ok = false
			continue
		}
		if name == "seed" {
			v, good := c.seed(a.Value)
			ok = ok && good
			x.Seed = v
			continue
		}
		if name == "ess" {
			v, good := c.essTarget(a.Value)
			ok = ok && good
			x.ESS = v
			continue
		}
		if name == "file" {
			ok = c.fitFile(a.Value, x) && ok
			continue
		}
		var v int
		var good bool
		switch name {
		case "iter":
			v, _, good = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: 1, hint: "iter counts the iterations kept after warm-up"})
		case "warmup":
			v, _, good = c.integer(a.Value, numScope{}, name)
			if good && v < 0 {
				c.errorf(a.Value.Pos, "", "warmup must be 0 or more, got %d", v)
				good = false
			}
		case "chains":
			v, _, good = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: 1})
			if good && v > 1024 {
				c.errorf(a.Value.Pos, "", "chains = %d is more than 1024", v)
				good = false
			}
		case "thin":
			v, _, good = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: 1, hint: "thin = 1 keeps every draw"})
		}
		ok = ok && good
		switch name {
		case "iter":
			x.Iter = v
		case "warmup":
			x.Warmup = v
		case "chains":
			x.Chains = v
		case "thin":
			x.Thin = v
		}
	}
	if x.Warmup < 0 {
		x.Warmup = DefaultWarmup(x.Iter)
	}
	if ok && x.Thin > x.Iter {
		// A fit that keeps no draw "succeeds" and leaves nothing to summarise.
		at := s.Pos
		for _, a := range s.Settings {
			if a.Name.Name == "thin" {
				at = a.Value.Pos
			}
		}
		c.errorf(at, fmt.Sprintf("thin keeps every thin-th of the iter post-warm-up iterations: use thin ≤ %d, or raise iter", x.Iter),
			"thin = %d keeps no draw of iter = %d", x.Thin, x.Iter)
		ok = false
	}
	if ok && x.ESS > 0 && x.ESS < essFloor*x.Chains {
		at := s.Pos
		for _, a := range s.Settings {
			if a.Name.Name == "ess" {
				at = a.Value.Pos
			}
		}
		c.errorf(at, fmt.Sprintf("ess counts the effective draws of all %d chains together: ask for at least %d", x.Chains, essFloor*x.Chains),
			"ess = %d is below the %d per chain under which a fit's report warns", x.ESS, essFloor)
		ok = false
	}
	if !ok {
		return nil, nil
	}
	return x, m
}

// fitFile checks the value of a file setting into x.File. The file is read
// when it holds the fit and written otherwise, so whether an existing file
// can be written is for the fit to find out when it runs (a fit file in a
// directory that cannot be written is still read).
func (c *checker) fitFile(e *dsl.Expr, x *Fit) bool {
	p, isPrim := e.AsPrimary()
	if !isPrim || p.Str == nil {
		c.errorf(e.Pos, `as in fit m, file = "m.fit"`, "file names the file that keeps the fit, got %s", describeExpr(e))
		return false
	}
	if strings.TrimSpace(p.Str.Value) == "" {
		c.errorf(p.Str.Pos, `as in fit m, file = "m.fit"`, "file needs a file name")
		return false
	}
	if !c.nameBeforeExtension(p.Str, "file", `file = "m.fit"`) {
		return false
	}
	x.File = p.Str.Value
	if files, canLook := c.env.(Files); canLook && !c.writes[x.File] {
		// A file there may hold the fit, to be read even from a directory
		// that cannot be written; with no file there, the fit will be
		// written, so a missing directory is an error now, not after the
		// statements before this one have run.
		if err := files.FitFile(x.File); err != nil {
			c.errorf(p.Str.Pos, "name a fit file, or a new file in a directory that exists and can be written, as in file = \"m.fit\"", "cannot keep the fit in %s: %v", x.File, err)
			return false
		}
	}
	c.writes[x.File] = true
	return true
}

// essFloor is the bulk and tail ESS per chain below which a fit's report
// warns; an ESS target may not ask for less.
const essFloor = 100

// essTarget checks the value of an ess setting: a whole number of at least
// essFloor (the chains' count is checked where it is known).
func (c *checker) essTarget(e *dsl.Expr) (int, bool) {
	v, _, ok := c.integerAtLeast(e, numScope{}, "ess", minimum{value: essFloor, hint: "ess is the least bulk and tail ESS of C's entries to reach, over all chains"})
	return v, ok
}

// method checks the with-clause of a fit against the model (m may be nil
// when the model did not resolve).
func (c *checker) method(me *dsl.Method, m *ModelInfo, x *Fit) bool {
	name := me.Name.Name
	if !c.oneOf(me.Name, "method", Methods()) {
		return false
	}
	x.Method = name
	ok := true
	switch name {
	case "gibbs", "px":
		if len(me.Args) > 0 {
			c.errorf(me.Args[0].Pos, "T is the travel time of the exact-HMC methods hmc and interweave", "%s takes no arguments", name)
			ok = false
		}
	default:
		bound, good := c.bindArgs(me.Name, me.Args, parameters(name), name+"(T = pi/2)")
		ok = good
		if a := bound["T"]; a != nil {
			v, _, g := c.number(a.Value, numScope{})
			if g && v <= 0 {
				c.errorf(a.Value.Pos, "the default is T = pi/2", "T must be positive, got %s", fmtNum(v))
				g = false
			}
			ok = ok && g
			x.TravelTime = v
		}
	}
	if m == nil {
		return ok
	}
	if _, full := m.Model.(inference.FullCorrelation); full && (name == "px" || name == "interweave") {
		c.errorf(me.Name.Pos, "use gibbs, hmc or auto for a full-correlation model",
			"%s samples factor models; %s has a full correlation matrix", name, m.Name)
		ok = false
	}
	return ok
}
