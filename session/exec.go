package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// exec runs one checked statement.
func (s *Session) exec(ctx context.Context, st compiler.Stmt, out Output) error {
	switch x := st.(type) {
	case *compiler.LoadData:
		return s.load(x, out)
	case *compiler.SimulateData:
		return s.simulate(x, out)
	case *compiler.DeclareModel:
		return s.declare(x, out)
	case *compiler.Explain:
		m, err := s.model(x.Model)
		if err != nil {
			return err
		}
		plan, err := compiler.Plan(m.Decl, dataInfo(m.Data), nil)
		if err != nil {
			return err
		}
		out.Stream("stdout", strings.TrimRight(plan.Explain(), "\n")+"\n")
		return nil
	case *compiler.Fit:
		return s.fit(ctx, x, out)
	case *compiler.Summary:
		return s.summary(x, out)
	case *compiler.PlotStmt:
		return s.plot(x, out)
	case *compiler.Impute:
		return s.impute(x, out)
	case *compiler.Export:
		return s.export(x, out)
	case *compiler.Show:
		return s.show(x, out)
	}
	return fmt.Errorf("statement %T is not supported yet", st)
}

// path resolves a path of a load or export statement.
func (s *Session) path(p string) string {
	if filepath.IsAbs(p) || s.opts.Dir == "" {
		return p
	}
	return filepath.Join(s.opts.Dir, p)
}

func (s *Session) model(name string) (*Model, error) {
	m, ok := s.models[name]
	if !ok {
		return nil, fmt.Errorf("%s is not a model", name)
	}
	return m, nil
}

func (s *Session) fitted(name string) (*Model, error) {
	m, err := s.model(name)
	if err != nil {
		return nil, err
	}
	if m.Fit == nil || len(m.Fit.C) == 0 || len(m.Fit.C[0]) == 0 {
		return nil, fmt.Errorf("model %s has no draws yet: run `fit %s` first", name, name)
	}
	return m, nil
}

func (s *Session) setData(d *Dataset) {
	delete(s.models, d.Name)
	s.data[d.Name] = d
	s.bind(d.Name)
}

func (s *Session) load(x *compiler.LoadData, out Output) error {
	f, err := os.Open(s.path(x.Path))
	if err != nil {
		return fmt.Errorf("cannot load data: %w", err)
	}
	defer f.Close()
	d, warnings, err := LoadCSV(f, x.Order)
	if err != nil {
		return fmt.Errorf("%s: %w", x.Path, err)
	}
	d.Name, d.Source = x.Name, x.Path
	for _, w := range warnings {
		out.Stream("stderr", fmt.Sprintf("warning: %s: %s\n", x.Path, w))
	}
	s.setData(d)
	out.Stream("stdout", describeData(d)+"\n")
	return nil
}

func (s *Session) simulate(x *compiler.SimulateData, out Output) error {
	sim, err := inference.Simulate(inference.SimSpec{P: x.P, K: x.K, N: x.N, Levels: x.Levels, Seed: x.Seed, Missing: x.Missing})
	if err != nil {
		return err
	}
	kind := fmt.Sprintf("FullCopula(p = %d)", x.P)
	if x.K > 0 {
		kind = fmt.Sprintf("FactorCopula(p = %d, k = %d)", x.P, x.K)
	}
	d := &Dataset{
		Name: x.Name, Names: sim.Names, Columns: sim.Columns, Labels: make([][]string, len(sim.Columns)),
		Source: fmt.Sprintf("simulate(%s, n = %d, levels = %d, seed = %d)", kind, x.N, x.Levels, x.Seed),
		Truth:  sim, TruthK: x.K,
	}
	s.setData(d)
	out.Stream("stdout", describeData(d)+"; the true C is kept for `plot rmse` and `plot heatmap "+d.Name+"`\n")
	return nil
}

// describeData is the one-line description of a data set printed when it
// is bound.
func describeData(d *Dataset) string {
	missing := 0
	for _, col := range d.Columns {
		missing += countMissing(col)
	}
	names := d.Names
	suffix := ""
	if len(names) > 8 {
		names, suffix = names[:8], ", ..."
	}
	return fmt.Sprintf("data %s: %d rows × %d columns (%s%s), %d missing cells, from %s",
		d.Name, d.N(), len(d.Names), strings.Join(names, ", "), suffix, missing, d.Source)
}

func (s *Session) declare(x *compiler.DeclareModel, out Output) error {
	d, ok := s.data[x.Data]
	if !ok {
		return fmt.Errorf("%s is not a data set", x.Data)
	}
	m := &Model{Decl: x, Data: d}
	for _, c := range x.Columns {
		j := d.column(c)
		if j < 0 {
			return fmt.Errorf("data %s has no column %s", d.Name, c)
		}
		m.Cols = append(m.Cols, j)
	}
	if len(m.Cols) == 0 {
		for j := range d.Names {
			m.Cols = append(m.Cols, j)
		}
	}
	delete(s.data, x.Name)
	s.models[x.Name] = m
	s.bind(x.Name)
	out.Stream("stdout", fmt.Sprintf("model %s: %s on %d columns of %s (%d rows)\n", x.Name, modelKind(x.Model), len(m.Cols), d.Name, d.N()))
	return nil
}

// modelKind describes a model's prior structure in words.
func modelKind(m inference.Model) string {
	switch x := m.(type) {
	case inference.FactorModel:
		prior := "normal loadings"
		if _, ok := x.Loadings.(inference.GDPLoadings); ok {
			prior = "GDP shrinkage loadings"
		}
		return fmt.Sprintf("Gaussian copula factor model with k = %d (%s)", x.K, prior)
	case inference.FullCorrelation:
		switch pr := x.Prior.(type) {
		case inference.LKJ:
			return fmt.Sprintf("Gaussian copula, full correlation, LKJ(eta = %g) prior", pr.Eta)
		case inference.InverseWishart:
			if pr.DF > 0 {
				return fmt.Sprintf("Gaussian copula, full correlation, inverse-Wishart(df = %g) prior", pr.DF)
			}
		}
		return "Gaussian copula, full correlation, inverse-Wishart prior"
	}
	return fmt.Sprintf("%T", m)
}

// columns returns the model's data columns in model order.
func (m *Model) columns() [][]float64 {
	cols := make([][]float64, len(m.Cols))
	for k, j := range m.Cols {
		cols[k] = m.Data.Columns[j]
	}
	return cols
}

func (s *Session) fit(ctx context.Context, x *compiler.Fit, out Output) error {
	m, err := s.model(x.Model)
	if err != nil {
		return err
	}
	plan, err := compiler.Plan(m.Decl, dataInfo(m.Data), x)
	if err != nil {
		return err
	}
	spec := inference.Spec{
		Columns:    m.columns(),
		Names:      m.Names(),
		Model:      m.Decl.Model,
		Method:     plan.Method,
		ColumnHMC:  plan.ColumnHMC,
		Iter:       x.Iter,
		Warmup:     x.Warmup,
		Thin:       x.Thin,
		Chains:     x.Chains,
		Seed:       x.Seed,
		TravelTime: x.TravelTime,
		KeepWarmup: m.Data.Truth != nil,
	}
	method := plan.Method.String()
	s.fits++
	displayID := fmt.Sprintf("copulang-fit-%d", s.fits)

	// The sampler reports progress from its goroutines; the cell's
	// goroutine forwards the latest state to the output, throttled.
	var mu sync.Mutex
	latest := inference.Progress{AllTotal: max(x.Chains, 1) * (x.Iter + x.Warmup), Warmup: x.Warmup > 0}
	out.Display(progressBundle(x.Model, method, latest, "starting"), displayID)
	type outcome struct {
		res *inference.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{nil, fmt.Errorf("internal error in the sampler: %v", r)}
			}
		}()
		res, err := inference.Run(ctx, spec, func(p inference.Progress) {
			mu.Lock()
			latest = p
			mu.Unlock()
		})
		done <- outcome{res, err}
	}()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var o outcome
wait:
	for {
		select {
		case o = <-done:
			break wait
		case <-tick.C:
			mu.Lock()
			p := latest
			mu.Unlock()
			out.UpdateDisplay(progressBundle(x.Model, method, p, ""), displayID)
		}
	}
	mu.Lock()
	final := latest
	mu.Unlock()
	if o.res != nil {
		final.Elapsed = o.res.Elapsed
	}
	if o.err != nil && (o.res == nil || !o.res.Interrupted) {
		out.UpdateDisplay(progressBundle(x.Model, method, final, "failed"), displayID)
		return o.err
	}
	if o.res.Interrupted || errors.Is(o.err, context.Canceled) {
		out.UpdateDisplay(progressBundle(x.Model, method, final, "interrupted"), displayID)
		kept := 0
		for _, c := range o.res.C {
			kept += len(c)
		}
		if kept == 0 {
			// Warm-up draws are not posterior draws: keep what was there.
			before := "it stays unfitted"
			if m.Fit != nil {
				before = "it keeps its previous fit"
			}
			return interrupted(fmt.Sprintf("fit %s during warm-up: no post-warm-up draws, so %s", x.Model, before))
		}
		m.Fit, m.FitStmt, m.Plan = o.res, x, plan
		return interrupted(fmt.Sprintf("fit %s: %d post-warm-up draws kept over %d chains; summaries and plots use them", x.Model, kept, len(o.res.C)))
	}
	m.Fit, m.FitStmt, m.Plan = o.res, x, plan
	final.AllDone = final.AllTotal
	out.UpdateDisplay(progressBundle(x.Model, method, final, "done"), displayID)
	out.Stream("stdout", fitReport(x, o.res)+"\n")
	return nil
}

// fitReport is the text printed after a fit: what ran, how long, and the
// convergence diagnostics with a warning when they are poor.
func fitReport(x *compiler.Fit, r *inference.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fit %s with %s: %d chains × %d iterations (%d warm-up) in %s",
		x.Model, r.Method, len(r.C), x.Iter+x.Warmup, x.Warmup, roundDuration(r.Elapsed))
	var st inference.StepStats
	for _, c := range r.Stats {
		st.Add(c)
	}
	if st.Iterations > 0 && st.Bounces > 0 {
		fmt.Fprintf(&b, "; %.1f HMC bounces per iteration", float64(st.Bounces)/float64(st.Iterations))
	}
	if st.Rejections > 0 {
		fmt.Fprintf(&b, "; %d trajectories rejected", st.Rejections)
	}
	if st.LKJProposed > 0 {
		fmt.Fprintf(&b, "; LKJ acceptance %.2f", float64(st.LKJAccepted)/float64(st.LKJProposed))
	}
	sums := r.Summary()
	maxR, minBulk, minTail := math.Inf(-1), math.Inf(1), math.Inf(1)
	for _, sm := range sums {
		if !math.IsNaN(sm.RHat) {
			maxR = math.Max(maxR, sm.RHat)
		}
		if !math.IsNaN(sm.ESSBulk) {
			minBulk = math.Min(minBulk, sm.ESSBulk)
		}
		if !math.IsNaN(sm.ESSTail) {
			minTail = math.Min(minTail, sm.ESSTail)
		}
	}
	if len(sums) > 0 && !math.IsInf(maxR, 0) {
		fmt.Fprintf(&b, "\nmax R-hat %.3f, min bulk ESS %.0f, min tail ESS %.0f over %d correlations", maxR, minBulk, minTail, len(sums))
		if maxR > 1.01 {
			b.WriteString("\nwarning: R-hat above 1.01: the chains disagree; run longer or check `plot trace`")
		}
		if minBulk < 100*float64(len(r.C)) || minTail < 100*float64(len(r.C)) {
			b.WriteString("\nwarning: ESS below 100 per chain: quantiles and R-hat are unreliable; run more iterations")
		}
	}
	return b.String()
}

func (s *Session) export(x *compiler.Export, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	path := s.path(x.Path)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot export: %w", err)
	}
	if err := WriteDraws(f, m.Fit); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	draws := 0
	for _, c := range m.Fit.C {
		draws += len(c)
	}
	out.Stream("stdout", fmt.Sprintf("wrote %d draws of %s to %s\n", draws, x.Model, s.path(x.Path)))
	return nil
}
