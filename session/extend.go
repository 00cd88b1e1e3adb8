package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// extend runs an extend statement: every chain of the model's fit runs
// x.Iter more iterations (the fit's iter when neither iter nor ess is
// given) from where it stopped, then, with x.ESS, goes on until that target
// is met (untilESS); the fit is replaced by one holding all the draws,
// reported like a fit. Interrupts behave as in fit: the draws so far are
// kept, and so are those made before a chain's sampler failed.
func (s *Session) extend(ctx context.Context, x *compiler.Extend, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	old := m.Fit
	if x.ESS > 0 && x.ESS < 100*len(old.C) {
		return fmt.Errorf("extend %s: ess = %d is below the 100 per chain (%d for its %d chains) under which a fit's report warns", x.Model, x.ESS, 100*len(old.C), len(old.C))
	}
	// Whatever made the new draws (sampled, or read from the fit's file;
	// finished, interrupted or failed), the fit's provenance names the
	// extension, and the iterations it added.
	defer func() {
		if m.Fit != old {
			m.extensions = append(slices.Clone(m.extensions), extensionRecord{statement: extendText(x.Model, extendKey(x)), from: ranIter(old), to: ranIter(m.Fit)})
		}
	}()
	// A fit kept in a file that holds this extension of it too (a notebook
	// run again) reads the extension instead of sampling it again.
	file := m.kept
	// unwritten is the file that holds the fit, when the fit extended here
	// is an extension not written there (stopped, or not written itself):
	// this one is not written either, as the file lacks the draws it
	// continues, which the note says.
	unwritten := m.extendedFrom
	// What the chains ran after warm-up: the fit's iter, or fewer when it
	// was interrupted.
	ran := minIterations(old) - old.Warmup
	more := x.Iter
	if more == 0 && x.ESS == 0 {
		more = ran
	}
	// other is the statement of another extension that the file holds
	// here, which this one replaces if it extends the fit. An ess target
	// alone may be met without extending, which replaces nothing: that
	// note waits for the outcome.
	other := ""
	if file != nil {
		read, o, err := s.readExtension(m, x, out)
		if read || err != nil {
			return err
		}
		if o != "" && more > 0 {
			out.Stream("stdout", otherExtensionNote(file, x, o, "extending and replacing it"))
		} else {
			other = o
		}
	}
	show := &fitProgress{jobProgress: jobProgress{out: out, id: s.progressID("fit")}, job: "extend " + x.Model, method: fitRan(m.Plan, old), more: true}
	fitCtx, end := s.fitScope(ctx)
	defer end()
	// An extension expected to take more than a minute says so first, as a
	// fit does.
	if d := timeFor(old, more); d > longFit {
		out.Stream("stdout", fmt.Sprintf("will run: %d more iterations per chain; %s at this fit's rate (a rough estimate)\n", more, compiler.AboutDuration(d)))
	}
	// As a fit's plan does, say when the draws will pass 1 GB of memory
	// (with an ess target, at most: its rounds stop at ESSLimit times ran).
	after, upTo := *m.FitStmt, ""
	after.Iter, after.Chains = ran+more, len(old.C)
	if x.ESS > 0 {
		after.Iter, upTo = max(after.Iter, compiler.ESSLimit*ran), "up to "
	}
	if b := compiler.KeptDrawsBytes(&after, old.P, old.K, old.WarmupC != nil); b > compiler.KeptDrawsMemory {
		out.Stream("stdout", fmt.Sprintf("note: after this extension the fit keeps %sabout %.1f GB of draws in memory\n", upTo, b/(1<<30)))
	}
	stopped := false
	if more > 0 {
		if stopped, err = s.extendFit(ctx, fitCtx, m, more, show, out); err != nil {
			var se *Error
			if file != nil && m.Fit != old && errors.As(err, &se) && se.Name == "KeyboardInterrupt" {
				// Interrupted (the kernel's interrupt), as a fit says.
				out.Stream("stdout", fmt.Sprintf("note: the extension was interrupted, so it is not written to %s, which keeps the fit before it\n", file.shown))
			}
			return err
		}
	}
	var until *untilOutcome
	if x.ESS > 0 && !stopped {
		u, err := s.untilESS(ctx, fitCtx, m, x.ESS, compiler.ESSLimit*ran, show, out)
		if err != nil {
			return err
		}
		until = &u
	}
	untilText, warning := "", ""
	if until != nil {
		untilText, warning = until.text(), until.warning(x.Model)
	}
	writeFitReport(out, m.FitStmt, m.Plan, m.Fit, extendHeadline(x.Model, old, m.Fit, untilText), true)
	warnIf(out, warning)
	if file == nil && unwritten != nil && m.Fit != old {
		out.Stream("stdout", fmt.Sprintf("note: the extension is kept in the session but not written to %s: it continues draws the file does not hold (an extension before it was stopped or not written); run the fit and its extensions again to keep them there\n", unwritten.shown))
	}
	if file == nil || m.Fit == old {
		// No file, or an ess target met without extending: nothing new.
		if other != "" {
			out.Stream("stdout", otherExtensionNote(file, x, other, "the ess target is met without extending, so the file keeps it"))
		}
		return nil
	}
	if other != "" {
		out.Stream("stdout", otherExtensionNote(file, x, other, "this extension replaces it"))
	}
	if stopped || until != nil && until.stopped {
		out.Stream("stdout", fmt.Sprintf("note: the extension was stopped, so it is not written to %s, which keeps the fit before it\n", file.shown))
		return nil
	}
	ext := fileExtension{Statement: extendKey(x), Saved: time.Now().UTC().Truncate(time.Second), Version: m.sampledBy,
		Until: untilText, UntilWarning: warning, After: true, Draws: drawsDigest(m.Fit)}
	// Only what the fit before it does not hold: the file holds that.
	enc, err := m.Fit.EncodeAfter(old)
	if err == nil {
		ext.draws = enc
		var kf *keptFile
		if kf, err = keepExtension(ctx, file, ext); err == nil {
			m.kept, m.extendedFrom = kf, nil
			out.Stream("stdout", fmt.Sprintf("wrote the extension to %s, after the fit: `%s` after the same fit reads it from there\n", file.shown, extendText(x.Model, extendKey(x))))
			return nil
		}
	}
	out.Stream("stdout", fmt.Sprintf("note: the extension is kept in the session but not written to %s: %v\n", file.shown, err))
	return nil
}

// extensionRecord is an extend statement that made a model's fit from
// the fit before it: the statement as the script wrote it, and the
// iterations per chain after warm-up that it ran, from+1 to to.
type extensionRecord struct {
	statement string
	from, to  int
}

// extendKey identifies an extend statement's extension in a fit file:
// after the same fit (and the same extensions before it), the same
// settings make the same draws.
// It is the settings as the statement writes them ("iter = 30, ess =
// 2000"; "" for neither).
func extendKey(x *compiler.Extend) string {
	var parts []string
	if x.Iter > 0 {
		parts = append(parts, fmt.Sprintf("iter = %d", x.Iter))
	}
	if x.ESS > 0 {
		parts = append(parts, fmt.Sprintf("ess = %d", x.ESS))
	}
	return strings.Join(parts, ", ")
}

// extendText is the extend statement of model with settings key
// (extendKey), as a script writes it.
func extendText(model, key string) string {
	if key == "" {
		return "extend " + model
	}
	return "extend " + model + ", " + key
}

// otherExtensionNote is the note that file holds another extension of
// the fit (the settings other) where x's would be, ending with what
// becomes of it.
func otherExtensionNote(file *keptFile, x *compiler.Extend, other, outcome string) string {
	return fmt.Sprintf("note: %s holds another extension of this fit (`%s`; this one is `%s`): %s\n",
		file.shown, extendText(x.Model, other), extendText(x.Model, extendKey(x)), outcome)
}

// readExtension reads the extension that extend statement x makes of m's
// fit from the file that keeps the fit (m.kept), when the file holds it
// after the fit and the extensions before it, and reports it as extend
// reports one it ran, saying where it was read from. It reports whether it
// read it; when the file holds another extension there it returns that
// one's settings (the caller says what becomes of it), and one that
// cannot be read is said in a note, and the extension runs (and replaces
// it).
func (s *Session) readExtension(m *Model, x *compiler.Extend, out Output) (bool, string, error) {
	kf, old := m.kept, m.Fit
	f, close, err := readKept(kf)
	if err != nil {
		return false, "", nil
	}
	defer close()
	if len(f.Extensions) == len(kf.extensions) {
		return false, "", nil
	}
	ext := f.Extensions[len(kf.extensions)]
	if ext.Statement != extendKey(x) {
		return false, ext.Statement, nil
	}
	var base *inference.Result
	if ext.After {
		base = old
	}
	res, err := readDraws(ext.draws, fitSpec(m, m.FitStmt, m.Plan), base)
	if err == nil {
		err = statesKept(madeByExtend(res, old, x), ext.StatesDropped)
	}
	if err == nil && ext.Draws != "" && drawsDigest(res) != ext.Draws {
		err = fmt.Errorf("its draws are not those it records (%s, want %s)", drawsDigest(res), ext.Draws)
	}
	if err != nil {
		out.Stream("stdout", fmt.Sprintf("note: %s holds this extension of the fit, but it cannot be read (%v): extending again and replacing it\n", kf.shown, err))
		return false, "", nil
	}
	// As after extendFit; the loadings were aligned before they were
	// written.
	fx := *m.FitStmt
	fx.Iter = res.Iter
	m.Fit, m.FitStmt, m.FitFile, m.sampledBy = res, &fx, kf.shown, ext.Version
	m.kept = &keptFile{path: kf.path, shown: kf.shown, saved: kf.saved, origin: kf.origin, extensions: append(slices.Clone(kf.extensions), ext.keptAs()), files: kf.files}
	m.extendedFrom = nil
	read := fmt.Sprintf("; read from %s (written %s by %s)", kf.shown, ext.Saved.Format("2006-01-02 15:04 UTC"), copulangText(ext.Version))
	headline := extendHeadline(x.Model, old, res, ext.Until)
	writeFitReport(out, m.FitStmt, m.Plan, res, func(ran string) string { return headline(ran) + read }, true)
	warnIf(out, ext.UntilWarning)
	return true, "", nil
}

// madeByExtend says why res is not an extension of old that x makes, or
// nil: a finished run of old's chains and warm-up, of x's further
// iterations (with an ess target, at least those and at most
// compiler.ESSLimit times what old ran), whose chains all ran to its end,
// can be continued, and begin with old's draws of C.
func madeByExtend(res, old *inference.Result, x *compiler.Extend) error {
	ran := minIterations(old) - old.Warmup
	more := x.Iter
	if more == 0 && x.ESS == 0 {
		more = ran
	}
	iterOK := res.Iter == ran+more
	if x.ESS > 0 {
		iterOK = res.Iter >= ran+more && res.Iter <= max(ran+more, compiler.ESSLimit*ran)
	}
	switch {
	case res.Interrupted || res.KeptDraws() == 0:
		return errors.New("an interrupted extension")
	case len(res.C) != len(old.C) || res.Warmup != old.Warmup || res.Thin != old.Thin || res.Seed != old.Seed:
		return errors.New("an extension of another fit")
	case !iterOK:
		return fmt.Errorf("an extension to %d iterations after warm-up", res.Iter)
	case slices.ContainsFunc(res.Iterations, func(it int) bool { return it != res.Warmup+res.Iter }):
		return fmt.Errorf("chains of %v iterations", res.Iterations)
	}
	for c := range old.C {
		if len(res.C[c]) < len(old.C[c]) {
			return errors.New("an extension of another fit")
		}
		for t, draw := range old.C[c] {
			if !slices.Equal(res.C[c][t], draw) {
				return errors.New("an extension of another fit")
			}
		}
	}
	return res.Extendable()
}

// extendFit runs every chain of m's fit more iterations under fitCtx (a
// fitScope's, from the cell's ctx), with progress shown by show, and makes
// the result m's fit (its FitStmt's iter grown to match). After an
// InterruptFit it says so and reports stopped; after the cell's interrupt
// err is its KeyboardInterrupt, and after a sampler's failure err says what
// failed (the draws made before it are kept). The caller writes the report.
func (s *Session) extendFit(ctx, fitCtx context.Context, m *Model, more int, show *fitProgress, out Output) (stopped bool, err error) {
	old := m.Fit
	if errors.Is(old.Extendable(), inference.ErrNoChainStates) && m.kept != nil {
		if stopped, err := s.restoreChains(ctx, fitCtx, m, out); stopped || err != nil {
			return stopped, err
		}
	}
	first := inference.Progress{Done: minIterations(old), Total: minIterations(old) + more, AllTotal: len(old.C) * more}
	o := s.sample(fitCtx, show, first, func(ctx context.Context, progress func(inference.Progress)) (*inference.Result, error) {
		return old.Extend(ctx, more, progress)
	})
	final := o.final
	if o.res == nil {
		// Extend refused, or its goroutine panicked after taking over the
		// chains: the fit keeps its draws but cannot be continued.
		show.update(final, "failed")
		return false, fmt.Errorf("%s: %w; the fit keeps its draws: fit %s again to go on", show.job, o.err, m.FitStmt.Model)
	}
	final.Elapsed = o.res.Elapsed - old.Elapsed
	// The fit's settings are now those of a fit with the larger iter; its
	// draws are all that were made, even when a chain's sampler failed
	// (the draws before the failure are posterior draws like the others).
	fx := *m.FitStmt
	fx.Iter = o.res.Iter
	before, from, extensions := m.sampledBy, m.kept, m.extensions
	if from == nil {
		from = m.extendedFrom
	}
	s.setFit(m, ranSettings(&fx, o.res), m.Plan, o.res)
	m.extendedFrom, m.extensions = from, extensions
	if now := versionOrUnknown(m.sampledBy); before != m.sampledBy && !strings.HasSuffix(before, ", extended by "+now) {
		// A fit read from another copulang's file, extended by this one.
		m.sampledBy = versionOrUnknown(before) + ", extended by " + now
	}
	// A sampler's failure is reported even when an interrupt came too.
	if o.err != nil && !errors.Is(o.err, context.Canceled) {
		show.update(final, "failed")
		return false, fmt.Errorf("%s: %w; the fit keeps its draws up to the failure (%d per chain)", show.job, o.err, len(o.res.C[0]))
	}
	if !o.res.Interrupted {
		final.AllDone = final.AllTotal
		show.update(final, "done")
		return false, nil
	}
	show.update(final, "interrupted")
	msg := fmt.Sprintf("%s: %d post-warm-up draws kept over %s; summaries and plots use them", show.job, o.res.KeptDraws(), plural(len(o.res.C), "chain"))
	if ctx.Err() != nil {
		return true, interrupted(msg)
	}
	out.Stream("stdout", "interrupted "+msg+"\n")
	return true, nil
}

// restoreChains gives m's fit, read from its file (m.kept) without its
// chains' states, which the file keeps for its last extension only
// (fitFile.StatesDropped), chains to continue: it samples the fit again,
// to the iterations it ran, under fitCtx, which makes the same draws
// (inference.Extend: a run of a+b iterations is a run of a extended by
// b), and the fit adopts that run's chains once its draws are found the
// same, bit for bit. A fit sampled by another copulang may not be made
// again: that is an error, as is a cell's interrupt (ctx); an
// InterruptFit reports stopped.
func (s *Session) restoreChains(ctx, fitCtx context.Context, m *Model, out Output) (stopped bool, err error) {
	old, kf := m.Fit, m.kept
	out.Stream("stdout", fmt.Sprintf("note: %s keeps the chains' states of its last extension only, and this fit, read from it, is not that one: sampling its %d iterations per chain again to continue them (%s at its rate)\n",
		kf.shown, minIterations(old), compiler.AboutDuration(timeFor(old, minIterations(old)))))
	show := &fitProgress{jobProgress: jobProgress{out: out, id: s.progressID("fit")}, job: "extend " + m.FitStmt.Model + " (its chains made again)", method: fitRan(m.Plan, old)}
	total := minIterations(old)
	o := s.sample(fitCtx, show, inference.Progress{Total: total, AllTotal: len(old.C) * total, Warmup: old.Warmup > 0}, func(ctx context.Context, progress func(inference.Progress)) (*inference.Result, error) {
		return inference.Run(ctx, fitSpec(m, m.FitStmt, m.Plan), progress)
	})
	switch {
	case ctx.Err() != nil:
		show.update(o.final, "interrupted")
		return true, interrupted(fmt.Sprintf("%s: the fit keeps its draws, as read from %s", show.job, kf.shown))
	case o.res != nil && o.res.Interrupted:
		show.update(o.final, "interrupted")
		out.Stream("stdout", fmt.Sprintf("interrupted %s: the fit keeps its draws, as read from %s, and is not extended\n", show.job, kf.shown))
		return true, nil
	case o.err == nil:
		o.err = old.AdoptChains(o.res)
	}
	if o.err != nil {
		show.update(o.final, "failed")
		return false, fmt.Errorf("%s: %w; the fit keeps its draws, as read from %s (sampled by %s): remove %s, or name another file, to fit %s again and extend it so",
			show.job, o.err, kf.shown, copulangText(m.sampledBy), kf.shown, m.FitStmt.Model)
	}
	o.final.AllDone = o.final.AllTotal
	show.update(o.final, "done")
	return false, nil
}

// untilOutcome is what untilESS did.
type untilOutcome struct {
	target, limit int
	rounds        int
	reached       bool
	stopped       bool    // by InterruptFit
	least, rhat   float64 // C's least bulk or tail ESS and largest R-hat at the end
}

// text says how the target went, for a report's headline.
func (u *untilOutcome) text() string {
	switch {
	case u.reached && u.rounds == 0:
		return fmt.Sprintf(", which met the least ESS of C asked, %d, without extending", u.target)
	case u.reached:
		return fmt.Sprintf(", until the least ESS of C reached %d (%s)", u.target, plural(u.rounds, "extension"))
	case u.stopped:
		return fmt.Sprintf(", stopped before the least ESS of C reached %d", u.target)
	}
	return fmt.Sprintf(", stopped at its limit of %d iterations per chain after warm-up", u.limit)
}

// warning is the warning a report gives when the target was not met at
// the limit ("" otherwise).
func (u *untilOutcome) warning(model string) string {
	if u.reached || u.stopped {
		return ""
	}
	return fmt.Sprintf("the least ESS of C is %s and the largest R-hat %s, short of ess = %d, after %d × iter: `extend %s, ess = %d` goes on",
		statText("%.0f", u.least), statText("%.3f", u.rhat), u.target, compiler.ESSLimit, model, u.target)
}

// warnIf writes warning, if any, to stderr.
func warnIf(out Output, warning string) {
	if warning != "" {
		out.Stream("stderr", "warning: "+warning+"\n")
	}
}

// untilESS extends m's fit (extendFit), in rounds, until every entry of C has bulk and
// tail ESS of at least target and split R-hat at most 1.01, or until its
// chains have run limit iterations after warm-up. Each round runs the
// iterations the least ESS asks for at the rate so far with a fifth to
// spare (iterationsFor), at least a tenth and at most three times those run
// so far, and says so on stdout; when only R-hat is short it doubles them. Its progress is
// shown by show. An InterruptFit (fitCtx) ends the rounds (stopped); a
// cell's interrupt (ctx) or a sampler failure is returned as extendFit
// returns it.
func (s *Session) untilESS(ctx, fitCtx context.Context, m *Model, target, limit int, show *fitProgress, out Output) (untilOutcome, error) {
	u := untilOutcome{target: target, limit: limit}
	show.job = fmt.Sprintf("%s (until ESS %d)", show.job, target)
	show.more = true
	for {
		if fitCtx.Err() != nil {
			// An InterruptFit between two rounds (a cell's interrupt also
			// cancels ctx, which the caller sees).
			if ctx.Err() != nil {
				return u, interrupted(fmt.Sprintf("%s: %d post-warm-up draws kept over %s; summaries and plots use them", show.job, m.Fit.KeptDraws(), plural(len(m.Fit.C), "chain")))
			}
			u.stopped = true
			return u, nil
		}
		r := m.Fit
		d := diagnose(r, false).c
		u.least, u.rhat = math.Min(d.minBulk, d.minTail), d.maxRHat
		// An entry whose ESS or R-hat is not a number (too few draws per
		// split chain) has not met anything.
		if d.nans == 0 && u.least >= float64(target) && u.rhat <= 1.01 {
			u.reached = true
			return u, nil
		}
		done := minIterations(r) - r.Warmup
		if done >= limit {
			return u, nil
		}
		more := done
		if d.nans == 0 && u.least < float64(target) {
			more = iterationsFor(u.least, done, float64(target))
		}
		// An ESS from few draws tends to be low, so a round runs at most
		// three times the iterations so far, and the next round looks again.
		more = min(max(more, done/10, 1), 3*done, limit-done)
		// NA: no entry's ESS or R-hat could be computed yet.
		out.Stream("stdout", fmt.Sprintf("ess: least ESS of C %s of the %d asked, max R-hat %s: %d more iterations per chain, %s at this fit's rate\n",
			statText("%.0f", u.least), target, statText("%.3f", u.rhat), more, compiler.AboutDuration(timeFor(r, more))))
		stop, err := s.extendFit(ctx, fitCtx, m, more, show, out)
		u.rounds++
		if err != nil {
			return u, err
		}
		if stop {
			u.stopped = true
			return u, nil
		}
	}
}

// timeFor is how long more iterations of every chain of r should take at
// the wall-clock rate of r's iterations so far (warm-up included).
func timeFor(r *inference.Result, more int) time.Duration {
	done := minIterations(r)
	if done < 1 {
		return 0
	}
	return time.Duration(float64(r.Elapsed) / float64(done) * float64(more))
}

// iterationsFor is how many more iterations would bring an ESS of least,
// after done iterations, to target if it grew in proportion to the draws,
// with a fifth to spare, rounded up to two significant digits; done again
// when least is not positive.
func iterationsFor(least float64, done int, target float64) int {
	if !(least > 0) || math.IsInf(least, 1) {
		return done
	}
	return max(roundUp2(float64(done)*(1.2*target/least-1)), 1)
}

// extendHeadline starts the report of an extension of old, which made r;
// until says how an ESS target went ("" if there was none).
func extendHeadline(model string, old, r *inference.Result, until string) func(ran string) string {
	return func(ran string) string {
		iters := plural(minIterations(r)-minIterations(old), "more iteration")
		if r.Interrupted {
			iters += ", interrupted,"
		}
		text := fmt.Sprintf("extend %s with %s: %s × %s in %s", model, ran, plural(len(r.C), "chain"), iters, roundDuration(r.Elapsed-old.Elapsed))
		return text + until + fmt.Sprintf("; now %d iterations per chain after %d warm-up", ranIter(r), r.Warmup)
	}
}
