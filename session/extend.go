package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// extend runs an extend statement: every chain of the model's fit runs
// x.Iter more iterations (the fit's iter when not given) from where it
// stopped, with live progress, and the fit is replaced by one holding all
// the draws, reported like a fit. Interrupts behave as in fit: the draws so
// far are kept, and so are those made before a chain's sampler failed.
func (s *Session) extend(ctx context.Context, x *compiler.Extend, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	old := m.Fit
	more := x.Iter
	if more == 0 {
		more = old.Iter
	}
	s.fits++
	show := &fitProgress{out: out, id: fmt.Sprintf("copulang-fit-%d", s.fits), job: "extend " + x.Model, method: fitRan(m.Plan, old), more: true}
	first := inference.Progress{Done: minIterations(old), Total: old.Warmup + old.Iter + more, AllTotal: len(old.C) * more}
	o := s.sample(ctx, show, first, func(ctx context.Context, progress func(inference.Progress)) (*inference.Result, error) {
		return old.Extend(ctx, more, progress)
	})
	final := o.final
	if o.res == nil {
		show.update(final, "failed")
		return fmt.Errorf("extend %s: %w", x.Model, o.err)
	}
	final.Elapsed = o.res.Elapsed - old.Elapsed
	// The fit's settings are now those of a fit with the larger iter; its
	// draws are all that were made, even when a chain's sampler failed
	// (the draws before the failure are posterior draws like the others).
	fx := *m.FitStmt
	fx.Iter = o.res.Iter
	s.setFit(m, &fx, m.Plan, o.res)
	stopped := o.res.Interrupted || errors.Is(o.err, context.Canceled)
	if o.err != nil && !stopped {
		show.update(final, "failed")
		return fmt.Errorf("extend %s: %w; the fit keeps its draws up to the failure (%d per chain)", x.Model, o.err, len(o.res.C[0]))
	}
	headline := extendHeadline(x.Model, old, o.res, more)
	if stopped {
		show.update(final, "interrupted")
		msg := fmt.Sprintf("extend %s: %d post-warm-up draws kept over %d chains; summaries and plots use them", x.Model, o.res.KeptDraws(), len(o.res.C))
		if ctx.Err() != nil {
			return interrupted(msg)
		}
		out.Stream("stdout", "interrupted "+msg+"\n")
	} else {
		final.AllDone = final.AllTotal
		show.update(final, "done")
	}
	writeFitReport(out, &fx, m.Plan, o.res, headline, true)
	return nil
}

// extendHeadline starts the report of an extension of old by more
// iterations per chain, which made r.
func extendHeadline(model string, old, r *inference.Result, more int) func(ran string) string {
	return func(ran string) string {
		iters := fmt.Sprintf("%d more iterations", more)
		if r.Interrupted {
			iters = fmt.Sprintf("%d of %d more iterations, interrupted,", minIterations(r)-minIterations(old), more)
		}
		return fmt.Sprintf("extend %s with %s: %d chains × %s in %s; now %d iterations per chain after %d warm-up",
			model, ran, len(r.C), iters, roundDuration(r.Elapsed-old.Elapsed), minIterations(r)-r.Warmup, r.Warmup)
	}
}
