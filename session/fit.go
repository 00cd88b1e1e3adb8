package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// longFit is the expected duration past which fit prints its estimate
// before sampling.
const longFit = time.Minute

// fit runs a fit statement: it plans the fit, says what will run, samples
// with live progress, and reports the fit and its diagnostics.
//
// Cancelling ctx (the kernel's interrupt) stops the fit, keeps its draws
// and ends the cell with a KeyboardInterrupt. InterruptFit stops only the
// fit: its draws are kept and the statements after it run on them.
func (s *Session) fit(ctx context.Context, x *compiler.Fit, out Output) error {
	m, err := s.model(x.Model)
	if err != nil {
		return err
	}
	plan, err := compiler.Plan(m.Decl, m.Data.Info(), x)
	if err != nil {
		return err
	}
	spec := fitSpec(m, x, plan)
	// The plan's notes say what was substituted for what the fit asked
	// (a column given to Gibbs, hmc on a factor model) and what may be slow.
	for _, note := range plan.Notes {
		out.Stream("stdout", "note: "+note+"\n")
	}
	if note := reboundDataNote(m, s.data); note != "" {
		out.Stream("stdout", "note: "+note+"\n")
	}
	// A file that holds this fit is read instead of sampling it again.
	var origin fitOrigin
	if x.File != "" {
		origin = originOf(m, x, plan, spec)
		saved, why, err := s.readFitFileShown(out, x, origin, spec)
		if err != nil {
			return err
		}
		if saved != nil {
			// As after an ESS target's rounds, the fit's iter is what its
			// chains ran. The loadings were aligned before they were
			// written: aligning them again would change their last bits.
			ran := *x
			ran.Iter = saved.res.Iter
			m.Fit, m.FitStmt, m.Plan, m.FitFile, m.sampledBy, m.extensions = saved.res, &ran, plan, x.File, saved.version, nil
			m.kept = &keptFile{path: s.path(x.File), shown: x.File, saved: saved.saved, origin: origin, files: s.files}
			for _, sc := range saved.scores {
				s.scores.put(sc.Key, keptScore{lp: sc.LP, chainTotals: sc.ChainTotals, from: x.File})
			}
			headline := fitHeadline(&ran, saved.res, saved.until)
			read := fmt.Sprintf("; read from %s (written %s%s)", x.File, saved.saved.Format("2006-01-02 15:04 UTC"), " by "+copulangText(saved.version))
			writeFitReport(out, &ran, plan, saved.res, func(method string) string { return headline(method) + read }, false)
			warnIf(out, saved.warn)
			if len(saved.extensions) > 0 {
				texts := make([]string, len(saved.extensions))
				for i, key := range saved.extensions {
					texts[i] = "`" + extendText(x.Model, key) + "`"
				}
				out.Stream("stdout", fmt.Sprintf("note: %s holds %s of this fit after it (%s): the same extend statements read %s instead of sampling again\n",
					x.File, plural(len(saved.extensions), "extension"), strings.Join(texts, ", then "), pronoun(len(saved.extensions))))
			}
			if saved.version != s.opts.Version {
				out.Stream("stdout", fmt.Sprintf("note: %s was sampled by %s, and this is %s: its draws are read as they are, since a fit is identified by its model, data and settings; remove %s to sample the fit with this copulang\n",
					x.File, copulangText(saved.version), copulangText(s.opts.Version), x.File))
			}
			return nil
		}
		// The fit will be written: find out now, not after sampling, if it
		// cannot be.
		if err := writable(s.path(x.File)); err != nil {
			return fmt.Errorf("cannot write %s: %w", x.File, err)
		}
		if why != "" {
			out.Stream("stdout", "note: "+why+"\n")
			if other := s.keeperOf(s.path(x.File), m); other != "" {
				out.Stream("stderr", fmt.Sprintf("warning: %s holds the fit of model %s, which this session keeps there: two fits that name one file overwrite each other, so every run of this notebook or script samples both again; name another file for %s's fit\n", x.File, other, x.Model))
			}
		}
	}
	// A fit expected to take more than a minute says so before it starts.
	if plan.Duration() > longFit {
		out.Stream("stdout", plan.Summary()+"\n")
	}
	ran := plan.Running()
	show := &fitProgress{jobProgress: jobProgress{out: out, id: s.progressID("fit")}, job: "fit " + x.Model, method: ran}

	fitCtx, end := s.fitScope(ctx)
	defer end()
	latest := inference.Progress{Total: x.Iter + x.Warmup, AllTotal: max(x.Chains, 1) * (x.Iter + x.Warmup), Warmup: x.Warmup > 0}
	o := s.sample(fitCtx, show, latest, func(ctx context.Context, progress func(inference.Progress)) (*inference.Result, error) {
		return inference.Run(ctx, spec, progress)
	})
	final := o.final
	if o.res != nil {
		final.Elapsed = o.res.Elapsed
		// The progress's last state, which nbconvert and a saved notebook
		// keep, names what ran: an adaptive plan's choice ("gibbs (auto)"),
		// not "gibbs, switching to hmc where predicted faster".
		show.method = fitRan(plan, o.res)
	}
	// A sampler's failure is reported even when an interrupt came too.
	if o.err != nil && !errors.Is(o.err, context.Canceled) {
		show.update(final, "failed")
		return o.err
	}
	if o.res.Interrupted || errors.Is(o.err, context.Canceled) {
		show.update(final, "interrupted")
		if x.File != "" {
			out.Stream("stdout", fmt.Sprintf("note: the fit was interrupted, so it is not written to %s\n", x.File))
		}
		return s.keepInterrupted(ctx, m, x, plan, o.res, out)
	}
	s.setFit(m, x, plan, o.res)
	final.AllDone = final.AllTotal
	show.update(final, "done")
	var until *untilOutcome
	if x.ESS > 0 {
		u, err := s.untilESS(ctx, fitCtx, m, x.ESS, compiler.ESSLimit*x.Iter, show, out)
		if err != nil {
			return err
		}
		until = &u
	}
	untilText, warning := "", ""
	if until != nil {
		untilText, warning = until.text(), until.warning(x.Model)
	}
	writeFitReport(out, m.FitStmt, plan, m.Fit, fitHeadline(m.FitStmt, m.Fit, untilText), false)
	warnIf(out, warning)
	if x.File == "" {
		return nil
	}
	if until != nil && until.stopped {
		out.Stream("stdout", fmt.Sprintf("note: the fit was stopped before its ESS target, so it is not written to %s\n", x.File))
		return nil
	}
	// Scores compare computed with these settings (before the file was
	// named, say) go into the file too.
	scores := s.scores.withPrefix(settingsKey(compareSpec(m)) + "/")
	saved, err := writeFitFile(ctx, s.files, s.path(x.File), x.File, origin, s.opts.Version, m.Fit, untilText, warning, scores)
	if err != nil {
		return fmt.Errorf("fit %s is kept, but could not be written to %s: %w", x.Model, x.File, err)
	}
	m.kept = &keptFile{path: s.path(x.File), shown: x.File, saved: saved, origin: origin, files: s.files}
	out.Stream("stdout", fmt.Sprintf("wrote the fit to %s: `fit %s` with the same settings reads it from there while the model and its data stay the same\n", x.File, x.Model))
	return nil
}

// keeperOf is the name of a model other than m whose fit the session keeps
// in the file at path (written or read there, or extended from there), or
// "".
func (s *Session) keeperOf(path string, m *Model) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(s.models)) {
		o := s.models[name]
		kf := o.kept
		if kf == nil {
			kf = o.extendedFrom
		}
		if o != m && kf != nil && sameFile(info, kf.path) {
			return name
		}
	}
	return ""
}

// sampled is what a sampling job returned, and its last progress.
type sampled struct {
	res   *inference.Result
	err   error
	final inference.Progress
}

// fitScope returns the context of a fit or extend statement, which
// InterruptFit cancels (and the cell's interrupt, through ctx), and the
// function that ends it. One scope covers every round of a statement, so
// that an InterruptFit between two rounds is not lost.
func (s *Session) fitScope(ctx context.Context) (context.Context, func()) {
	fitCtx, stopFit := context.WithCancel(ctx)
	s.fitMu.Lock()
	s.stopFit = stopFit
	s.fitMu.Unlock()
	return fitCtx, func() {
		s.fitMu.Lock()
		s.stopFit = nil
		s.fitMu.Unlock()
		stopFit()
	}
}

// sample runs job — a fit's inference.Run or an extension — under ctx (a
// fitScope's), with its progress shown by show, starting from the state
// first. A panic in job's own goroutine becomes an error (the chains'
// goroutines are the sampler's).
func (s *Session) sample(ctx context.Context, show *fitProgress, first inference.Progress, job func(context.Context, func(inference.Progress)) (*inference.Result, error)) sampled {

	// The sampler reports progress from its goroutines; the cell's
	// goroutine forwards the latest state to the output on a ticker, with
	// the elapsed time of its own clock, so that it moves even while one
	// iteration takes longer than a tick.
	var mu sync.Mutex
	latest := first
	show.update(latest, "starting")
	done := make(chan sampled, 1)
	start := time.Now()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- sampled{err: fmt.Errorf("internal error in the sampler: %v", r)}
			}
		}()
		res, err := job(ctx, func(p inference.Progress) {
			mu.Lock()
			latest = p
			mu.Unlock()
		})
		done <- sampled{res: res, err: err}
	}()
	o := forwardProgress(done, progressEvery, start, func() inference.Progress {
		mu.Lock()
		defer mu.Unlock()
		return latest
	}, func(p inference.Progress) { show.update(p, "") })
	mu.Lock()
	o.final = latest
	mu.Unlock()
	o.final.Elapsed = time.Since(start)
	return o
}

// fitSpec is what a fit of model m with settings x and plan runs.
func fitSpec(m *Model, x *compiler.Fit, plan *compiler.InferencePlan) inference.Spec {
	return inference.Spec{
		Columns:    m.columns(),
		Names:      m.Names(),
		Model:      m.Decl.Model,
		Method:     plan.Method,
		ColumnHMC:  plan.ColumnHMC,
		Adapt:      plan.Adapt,
		Iter:       x.Iter,
		Warmup:     x.Warmup,
		Thin:       x.Thin,
		Chains:     x.Chains,
		Seed:       x.Seed,
		TravelTime: x.TravelTime,
		KeepWarmup: m.Data.Truth != nil,
	}
}

// forwardProgress shows the latest progress every tick until done
// delivers, and returns what it delivered. The elapsed time is the time
// since start, not the sampler's last report, so that it keeps moving
// while one iteration runs long.
func forwardProgress[T any](done <-chan T, every time.Duration, start time.Time, latest func() inference.Progress, show func(inference.Progress)) T {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case o := <-done:
			return o
		case <-tick.C:
			p := latest()
			p.Elapsed = time.Since(start)
			show(p)
		}
	}
}

// keepInterrupted keeps the draws of an interrupted fit. When the cell was
// interrupted (ctx is cancelled) it ends with a KeyboardInterrupt; when
// only the fit was (InterruptFit), the statements after it go on.
func (s *Session) keepInterrupted(ctx context.Context, m *Model, x *compiler.Fit, plan *compiler.InferencePlan, res *inference.Result, out Output) error {
	kept := res.KeptDraws()
	var msg string
	if kept == 0 {
		// Warm-up draws are not posterior draws: keep what was there.
		before := "it stays unfitted"
		if m.Fit != nil {
			before = "it keeps its previous fit"
		}
		msg = fmt.Sprintf("fit %s during warm-up: no post-warm-up draws, so %s", x.Model, before)
	} else {
		s.setFit(m, ranSettings(x, res), plan, res)
		msg = fmt.Sprintf("fit %s: %d post-warm-up draws kept over %s; summaries and plots use them", x.Model, kept, plural(len(res.C), "chain"))
	}
	if ctx.Err() != nil {
		return interrupted(msg)
	}
	out.Stream("stdout", "interrupted "+msg+"\n")
	if kept > 0 {
		writeFitReport(out, x, plan, res, fitHeadline(x, res, ""), false)
	}
	return nil
}

// ranSettings returns the settings of a fit that made res: x, or for an
// interrupted run a copy of x whose iter is what its shortest chain ran
// after warm-up, so that compare refits it for as long as it ran, not for
// the iterations it was stopped short of.
func ranSettings(x *compiler.Fit, res *inference.Result) *compiler.Fit {
	if !res.Interrupted {
		return x
	}
	ran := *x
	ran.Iter = max(minIterations(res)-res.Warmup, 1)
	return &ran
}

// setFit records a model's fit, with its loadings aligned across chains
// and draws (inference.AlignLoadings) so that every summary, plot and
// export of Lambda means the same thing.
func (s *Session) setFit(m *Model, x *compiler.Fit, plan *compiler.InferencePlan, res *inference.Result) {
	if len(res.Lambda) > 0 {
		res.Lambda = inference.AlignLoadings(res.Lambda, res.P, res.K, loadingsAlignment(m.Decl.Model))
	}
	m.Fit, m.FitStmt, m.Plan, m.FitFile, m.kept, m.extendedFrom, m.extensions = res, x, plan, "", nil, nil, nil
	m.sampledBy = s.opts.Version
}

// versionOrUnknown is version, or "unknown" when it was not recorded.
func versionOrUnknown(version string) string {
	if version == "" {
		return "unknown"
	}
	return version
}

// copulangText names the copulang of version: "copulang 0.1.0", or, for a
// version not recorded (a fit file written before it was, or a session
// not told its version), words that say so.
func copulangText(version string) string {
	if version == "" {
		return "a copulang that did not record its version"
	}
	return "copulang " + version
}

// InterruptFit stops the fit that is running, if any, keeping its draws,
// and lets the cell or script go on with the statements after it, which
// use them; it reports whether a fit was running. It may be called from
// any goroutine: `copulang run` calls it on the first Ctrl-C.
func (s *Session) InterruptFit() bool {
	s.fitMu.Lock()
	defer s.fitMu.Unlock()
	if s.stopFit == nil {
		return false
	}
	s.stopFit()
	return true
}

// fitHeadline starts a fit's report: what ran (ran, from the plan or the
// schedule), how many iterations and how long, and how an ESS target went
// (until, untilOutcome.text, "" without one).
func fitHeadline(x *compiler.Fit, r *inference.Result, until string) func(ran string) string {
	return func(ran string) string {
		iters := fmt.Sprintf("%s (%d warm-up)", plural(x.Iter+x.Warmup, "iteration"), x.Warmup)
		if r.Interrupted {
			iters = fmt.Sprintf("%d of %d iterations (%d warm-up), interrupted", minIterations(r), x.Iter+x.Warmup, x.Warmup)
		}
		text := fmt.Sprintf("fit %s with %s: %s × %s in %s", x.Model, ran, plural(len(r.C), "chain"), iters, roundDuration(r.Elapsed))
		return text + until
	}
}

// fitReport is the text printed after a fit or an extension: its headline,
// what the sampler steps did, and the convergence diagnostics with a
// warning when they are poor.
func fitReport(headline, model string, r *inference.Result, rareBinary []int) (report string, d diagnostics, warnings []string) {
	var b strings.Builder
	b.WriteString(headline)
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
	if st.LoadingsProposed > 0 {
		fmt.Fprintf(&b, "; collapsed loadings acceptance %.2f", float64(st.LoadingsAccepted)/float64(st.LoadingsProposed))
	}
	d = fitDiagnostics(r)
	d.entry = entryNamer(model, r)
	d.model = model
	if len(rareBinary) == len(r.Names) {
		d.rareBinary, d.rareNames = rareBinary, columnTexts(r.Names)
	}
	d.seconds = r.Elapsed.Seconds()
	if mean, err := r.MeanCommunality(); err == nil {
		d.communality = mean
		d.column = func(j int) string {
			if name, ok := columnName(r, j); ok {
				return name
			}
			return fmt.Sprintf("column %d", j+1)
		}
		if comm, err := r.Communality(); err == nil {
			chains := make([][][]float64, len(comm))
			for j, c := range comm {
				chains[j] = inference.NonEmptyShortest(c)
			}
			if len(chains) > 0 && len(chains[0]) > 0 {
				d.communalityDiag = inference.DiagnoseAll(chains)
				d.communalitySpread = make([]chainSpread, len(comm))
				for j, c := range comm {
					d.communalitySpread[j] = spreadOf(c)
				}
			}
		}
	}
	warnings = d.report(&b, len(r.C))
	if note := slowComponentNote(r, d); note != "" {
		b.WriteString("\nnote: " + note)
	}
	return b.String(), d, warnings
}

// writeFitReport writes the report of a fit or an extension of x (then
// without the schedule an adaptive fit chose, already reported) to
// stdout, and its warnings, when the diagnostics are poor, to stderr,
// followed by the plan's advice for poor mixing and how to extend the fit.
func writeFitReport(out Output, x *compiler.Fit, plan *compiler.InferencePlan, r *inference.Result, headline func(ran string) string, extension bool) {
	report, d, warnings := fitReport(headline(fitRan(plan, r)), x.Model, r, plan.RareBinary)
	// An adaptive fit's choice was made and reported during its warm-up;
	// an extension keeps it.
	if sc := r.Schedule; sc != nil && !extension {
		report += "\n" + scheduleReport(sc, r.Names, x.Model)
	}
	out.Stream("stdout", report+"\n")
	for _, w := range warnings {
		out.Stream("stderr", "warning: "+w+"\n")
	}
	if len(warnings) == 0 {
		return
	}
	// The plan's advice is for slow mixing (more iterations, another
	// sampler); chains that each mixed but sit apart need neither.
	// Nor does a rare binary column's, which its warnings explain.
	if plan.IfPoorMixing != "" && (r.Schedule == nil || !slices.Contains(r.Schedule.HMC, true)) && d.modesNote(len(r.C)) == "" && !d.rareWorst() {
		out.Stream("stderr", "hint: "+plan.IfPoorMixing+"\n")
	}
	if hint := extendHint(x.Model, d, len(r.C), minIterations(r)-r.Warmup); hint != "" {
		out.Stream("stderr", "hint: "+hint+"\n")
	}
}

// extendHint says how to extend a fit of chains chains that ran ran
// iterations after warm-up and whose diagnostics d warn: `extend m, iter =
// N` with N from extendSuggestion, and, when C itself falls short (an ESS
// target is on C, not on a factor model's loadings), `extend m, ess = E`.
func extendHint(model string, d diagnostics, chains, ran int) string {
	more := extendSuggestion(d, chains, ran)
	if more < 1 {
		return ""
	}
	why := "as many as the fit ran"
	st := d.hinted(chains)
	switch ess, rhat := st.essWarns(chains), st.rhatWarns(); {
	case ess && rhat:
		why = "as many as the fit ran, or what the least ESS needs to reach 100 per chain at this fit's rate if that is more"
	case ess:
		why = "about what the least ESS needs to reach 100 per chain at this fit's rate"
	}
	hint := fmt.Sprintf("`extend %s, iter = %d` runs every chain %s from where it stopped (%s) and adds their draws", model, more, plural(more, "more iteration"), why)
	if target := 100 * chains; d.c.essWarns(chains) || d.c.rhatWarns() {
		hint += fmt.Sprintf("; `extend %s, ess = %d` runs on until every entry of C has bulk and tail ESS ≥ %d and R-hat ≤ 1.01", model, target, target)
	}
	return hint
}

// extendSuggestion is how many more iterations to suggest after a fit of
// chains chains that ran ran iterations after warm-up (fewer than its iter
// when interrupted) and whose diagnostics d warn: when an ESS is low, those that would bring the
// least ESS (bulk or tail) to 100 per chain at the fit's rate so far
// (iterationsFor), or as many as the fit ran if that is more and R-hat
// warns too; when only R-hat warns, as many as the fit ran. It goes by C's
// entries when they warn, as the warnings do, else by all (d.hinted).
func extendSuggestion(d diagnostics, chains, ran int) int {
	if ran < 1 || chains < 1 {
		return 0
	}
	st := d.hinted(chains)
	if !st.essWarns(chains) {
		return ran
	}
	more := iterationsFor(min(st.minBulk, st.minTail), ran, 100*float64(chains))
	if st.rhatWarns() {
		// Chains that disagree need more than the ESS alone asks for.
		more = max(more, ran)
	}
	return more
}

// hinted is the diagnostics the extend hint goes by: C's entries when they
// warn, else all, a factor model's loadings too. A loading's ESS depends on
// how the draws were aligned, and an ESS target is on C: on the GSS with
// k = 3, C's least ESS (13) asks for 35,000 more iterations, an aligned
// loading's (7) for 70,000.
func (d diagnostics) hinted(chains int) diagStats {
	if d.c.essWarns(chains) || d.c.rhatWarns() {
		return d.c
	}
	return d.all
}

// roundUp2 rounds x > 0 up to two significant digits (2345 → 2400).
func roundUp2(x float64) int {
	if !(x > 0) {
		return 0
	}
	scale := math.Pow(10, math.Max(0, math.Floor(math.Log10(x))-1))
	return int(math.Ceil(x/scale) * scale)
}

// fitRan names what a fit ran: the plan's method (plan.Running), or for an
// adaptive run what it chose during warm-up ("gibbs (auto)").
func fitRan(plan *compiler.InferencePlan, r *inference.Result) string {
	if sc := r.Schedule; sc != nil {
		return scheduleRan(sc) + " (auto)"
	}
	return plan.Running()
}

// ranMethod names the sampler a fit ran in a word or a few, for tables and
// legends: the method, or for an adaptive run what it chose (scheduleRan),
// never the "hmc" an adaptive run is planned as.
func ranMethod(r *inference.Result) string {
	if sc := r.Schedule; sc != nil {
		return scheduleRan(sc)
	}
	return r.Method.String()
}

// scheduleRan names what an adaptive run ran after its choice: "gibbs",
// "hmc" or "hmc for 3 columns, gibbs for 17".
func scheduleRan(sc *inference.Schedule) string {
	k := 0
	for _, h := range sc.HMC {
		if h {
			k++
		}
	}
	switch k {
	case 0:
		return "gibbs"
	case len(sc.HMC):
		return "hmc"
	}
	return fmt.Sprintf("hmc for %s, gibbs for %d", plural(k, "column"), len(sc.HMC)-k)
}

// closeCall bounds the predicted speed-ups of the adaptive schedule, either
// way, that scheduleReport calls a close call: within it the mixing model's
// scatter decides the choice as much as the data do. Its predictions of τ
// have residual sd 0.45 (Gibbs) and 0.62 (exact HMC) on the log scale over
// the runs they were fitted to (sampling.md §9.5), so the log of a
// predicted speed-up has sd about 0.77, and a speed-up within 2× either way
// is within one sd of no gain. (Before the scaling move the bound was 4:
// Gibbs's τ was then 22× to 58× off on four of twelve data sets alike.)
const closeCall = 2.0

// scheduleReport says what an adaptive run chose after its Gibbs warm-up
// iterations, and the predictions behind it (sampling.md §9.2).
func scheduleReport(sc *inference.Schedule, names []string, model string) string {
	text := scheduleChoice(sc, names)
	if s := sc.Speedup(); s > 0 && s < closeCall && s > 1/closeCall {
		text += fmt.Sprintf("\nThis is a close call: the mixing model's predictions of Gibbs's τ were off by 1.6× typically and by up to 4.4× on the runs it was fitted to (sampling.md §9.5). If the run's speed matters, compare `fit %s with gibbs` and `fit %s with hmc` on their min bulk ESS per second.", model, model)
	}
	return text
}

// scheduleChoice is the first part of scheduleReport: what was chosen and
// why.
func scheduleChoice(sc *inference.Schedule, names []string) string {
	worst := 0
	for j, r2 := range sc.R2 {
		if r2 > sc.R2[worst] {
			worst = j
		}
	}
	var hmc []string
	for j, h := range sc.HMC {
		if h {
			hmc = append(hmc, names[j])
		}
	}
	why := fmt.Sprintf("the largest R² of a column given the others is %.2f (%s), where Gibbs's predicted autocorrelation time of C's worst entry is %s", sc.R2[worst], names[worst], fmtTau(sc.GibbsTau))
	which := strings.Join(hmc, ", ")
	switch {
	case len(hmc) == len(sc.HMC):
		which = "every column"
	case len(hmc) > 8:
		which = fmt.Sprintf("the %d columns of largest R²", len(hmc))
	}
	rest := ""
	if k := len(sc.HMC) - len(hmc); k > 0 && len(hmc) > 0 {
		rest = fmt.Sprintf(" (the other %s keep Gibbs)", plural(k, "column"))
	}
	switch {
	case len(hmc) > 0:
		return fmt.Sprintf("auto switched %s to exact HMC after %d warm-up iterations%s: %s, and this schedule's %s, at %.1f× the time per iteration: about %.1f× Gibbs's bulk ESS per second predicted (sampling.md §9.2)",
			which, sc.After, rest, why, fmtTau(sc.Tau), sc.PerIter.Seconds()/sc.GibbsPerIter.Seconds(), sc.Speedup())
	case sc.BeyondRows:
		return fmt.Sprintf("auto kept Hoff's Gibbs update for every column after %d warm-up iterations: the data have more rows than the %d of the largest runs its mixing model was fitted to, and beyond them Gibbs mixed well where measured while exact HMC grew costlier (sampling.md §9.2)", sc.After, inference.MixingMaxRows)
	case sc.Tau == 0:
		return fmt.Sprintf("auto kept Hoff's Gibbs update for every column after %d warm-up iterations: no column has 3 to 10 levels, where exact HMC could help (sampling.md §9.2)", sc.After)
	}
	return fmt.Sprintf("auto kept Hoff's Gibbs update for every column after %d warm-up iterations: %s, and the best schedule with exact HMC, at %s, does not pay for its %.1f× time per iteration (predicted %.2g× Gibbs's bulk ESS per second; sampling.md §9.2)",
		sc.After, why, fmtTau(sc.Tau), sc.PerIter.Seconds()/sc.GibbsPerIter.Seconds(), sc.Speedup())
}

// fmtTau prints a predicted autocorrelation time to the precision it has.
func fmtTau(tau float64) string {
	if tau < 10 {
		return fmt.Sprintf("%.1f", tau)
	}
	return fmt.Sprintf("%.0f", tau)
}

// minIterations is the fewest iterations a chain of r completed.
func minIterations(r *inference.Result) int {
	least := -1
	for _, it := range r.Iterations {
		if least < 0 || it < least {
			least = it
		}
	}
	return max(least, 0)
}

// reboundDataNote says, for a fit of model m, that the name of m's data
// now names other data than m was declared on ("" when it does not): a
// model keeps the data it was declared on, so a notebook that loads its
// edited file again and runs the fit's cell, not the model's, fits the
// data as they were, and must be told so. Data bound again to the same
// values of the model's columns (a load cell run again) need no note.
func reboundDataNote(m *Model, data map[string]*Dataset) string {
	now, ok := data[m.Data.Name]
	if !ok || now == m.Data || sameModelColumns(m, now) {
		return ""
	}
	name := m.Data.Name
	return fmt.Sprintf("%s fits %s as it was when %s was declared (%d rows, from %s), not the data %s names now (%d rows, from %s%s): declare %s again to fit those",
		m.Decl.Name, name, m.Decl.Name, m.Data.N(), m.Data.origin(), name, now.N(), now.origin(), dataChange(m, now), m.Decl.Name)
}

// dataChange says, for reboundDataNote, how d differs from m's data in
// m's columns beyond its number of rows, after a semicolon: the columns d
// lacks and, with as many rows, how many cells of each column differ
// ("; no column pchildren; 3 cells of income differ"). A load cell run
// again with a column dropped or a missing-value code changed gives data
// of the same rows and source, which the note would otherwise describe as
// it describes the data the model keeps.
func dataChange(m *Model, d *Dataset) string {
	var gone, changed []string
	for _, j := range m.Cols {
		name := m.Data.Names[j]
		k := slices.Index(d.Names, name)
		if k < 0 {
			gone = append(gone, columnText(name))
			continue
		}
		if d.N() != m.Data.N() {
			continue
		}
		n := 0
		for i, a := range m.Data.Columns[j] {
			if b := d.Columns[k][i]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				n++
			}
		}
		if n > 0 {
			changed = append(changed, fmt.Sprintf("%s of %s", plural(n, "cell"), columnText(name)))
		}
	}
	var b strings.Builder
	if len(gone) > 0 {
		fmt.Fprintf(&b, "; no column %s", andList(gone))
	}
	if len(changed) > 0 {
		verb := "differ"
		if len(changed) == 1 && strings.HasPrefix(changed[0], "1 cell ") {
			verb = "differs"
		}
		fmt.Fprintf(&b, "; %s %s", andList(changed), verb)
	}
	return b.String()
}

// andList joins items as "a", "a and b" or "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// sameModelColumns says whether d has every column of m's data, by name,
// with the same values (every missing cell alike).
func sameModelColumns(m *Model, d *Dataset) bool {
	for _, j := range m.Cols {
		k := slices.Index(d.Names, m.Data.Names[j])
		if k < 0 {
			return false
		}
		if !slices.EqualFunc(m.Data.Columns[j], d.Columns[k], func(a, b float64) bool {
			return a == b || math.IsNaN(a) && math.IsNaN(b)
		}) {
			return false
		}
	}
	return true
}

// readProgressFrom is the size from which reading a fit file shows its
// progress: a survey's fit of 50,000 × 30 in 4 chains is 157 MB, and
// checking and decoding it took 3 to 4 s with nothing shown.
const readProgressFrom = 32 << 20

// readFitFileShown reads x's fit file as readFitFile does, showing how far
// it has got when the file has s.readProgressFrom bytes or more (then
// readProgressFrom; tests set less).
func (s *Session) readFitFileShown(out Output, x *compiler.Fit, origin fitOrigin, spec inference.Spec) (*savedFit, string, error) {
	path := s.path(x.File)
	from := s.readProgressFrom
	if from == 0 {
		from = readProgressFrom
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() < from {
		return readFitFile(path, x.File, x, origin, spec, nil)
	}
	var read atomic.Int64
	size := info.Size()
	total := 2 * size // checksums, then draws
	start := time.Now()
	file := fmt.Sprintf("%s (%.0f MB)", x.File, float64(size)/1e6)
	status := func(text string) MimeBundle {
		done := min(read.Load(), total)
		if text == "" {
			text = fmt.Sprintf("fit %s: reading %s, %d%%, %s elapsed", x.Model, file, 100*done/total, roundDuration(time.Since(start)))
		}
		return barBundle(text, int(done>>10), int(total>>10))
	}
	show := &jobProgress{out: out, id: s.progressID("read")}
	var saved *savedFit
	var why string
	err = inBackground(show, func() MimeBundle { return status("") }, func() error {
		var err error
		saved, why, err = readFitFile(path, x.File, x, origin, spec, &read)
		return err
	})
	took := roundDuration(time.Since(start))
	switch {
	case err != nil:
		show.show(status(fmt.Sprintf("fit %s: reading %s failed after %s", x.Model, file, took)), "failed")
	case saved == nil:
		read.Store(total)
		show.show(status(fmt.Sprintf("fit %s: read %s in %s: it does not hold this fit", x.Model, file, took)), "done")
	default:
		read.Store(total)
		show.show(status(fmt.Sprintf("fit %s: read %s in %s", x.Model, file, took)), "done")
	}
	return saved, why, err
}
