package compiler

import (
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// fit checks fit NAME [with METHOD(ARGS)] [, SETTING = VALUE ...].
func (c *checker) fit(s *dsl.FitStmt) Stmt {
	m, _, ok := c.modelBinding(s.Model, false, "fit")
	x := &Fit{
		At: s.Pos, Model: s.Model.Name, Method: "auto", TravelTime: DefaultTravelTime,
		Iter: DefaultIter, Chains: DefaultChains, Seed: DefaultSeed, Thin: DefaultThin, Warmup: -1,
	}
	if s.Method != nil {
		ok = c.method(s.Method, m, x) && ok
	}
	settings := []string{"iter", "warmup", "chains", "seed", "thin"}
	seen := map[string]bool{}
	for _, a := range s.Settings {
		name := a.Name.Name
		if !contains(settings, name) {
			hint := "fit settings: " + strings.Join(settings, ", ")
			if near := dsl.Nearest(name, settings); near != "" {
				hint = "did you mean " + near + "?"
			} else if name == "T" || contains(Methods, name) {
				hint = "the method and its arguments come after with, as in fit m with hmc(T = pi/2)"
			}
			c.errorf(a.Name.Pos, hint, "fit has no setting %s", name)
			ok = false
			continue
		}
		if seen[name] {
			c.errorf(a.Name.Pos, "", "fit: %s given twice", name)
			ok = false
			continue
		}
		seen[name] = true
		if name == "seed" {
			v, good := c.seed(a.Value)
			ok = ok && good
			x.Seed = v
			continue
		}
		v, _, good := c.integer(a.Value, numScope{}, name)
		if good {
			switch {
			case name == "iter" && v < 1:
				c.errorf(a.Value.Pos, "iter counts the iterations kept after warm-up", "iter must be at least 1, got %d", v)
				good = false
			case name == "warmup" && v < 0:
				c.errorf(a.Value.Pos, "", "warmup must be 0 or more, got %d", v)
				good = false
			case name == "chains" && v < 1:
				c.errorf(a.Value.Pos, "", "chains must be at least 1, got %d", v)
				good = false
			case name == "chains" && v > 1024:
				c.errorf(a.Value.Pos, "", "chains = %d is more than 1024", v)
				good = false
			case name == "thin" && v < 1:
				c.errorf(a.Value.Pos, "thin = 1 keeps every draw", "thin must be at least 1, got %d", v)
				good = false
			}
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
	if !ok {
		return nil
	}
	if l, isLocal := c.local[x.Model]; isLocal {
		l.fitted = true
	} else {
		info := *m
		info.Fitted = true
		c.local[x.Model] = &local{b: &info, fitted: true}
	}
	return x
}

// method checks the with-clause of a fit against the model (m may be nil
// when the model did not resolve).
func (c *checker) method(me *dsl.Method, m *ModelInfo, x *Fit) bool {
	name := me.Name.Name
	if !contains(Methods, name) {
		hint := "methods: " + strings.Join(Methods, ", ")
		if near := dsl.Nearest(name, Methods); near != "" {
			hint = "did you mean " + near + "?"
		}
		c.errorf(me.Name.Pos, hint, "unknown method %s", name)
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
		bound, good := c.bindArgs(me.Name, me.Args, []param{{"T", true, false}}, name+"(T = pi/2)")
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
