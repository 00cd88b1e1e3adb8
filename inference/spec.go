package inference

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/copulang/copulang/hough"
)

// Model is the prior structure of the copula correlation C: FullCorrelation
// or FactorModel.
type Model interface{ isModel() }

// FullCorrelation is Hoff's model: C is an unstructured correlation matrix
// with the given prior (InverseWishart or LKJ; nil means InverseWishart{}).
type FullCorrelation struct {
	Prior CorrelationPrior
}

// FactorModel is the copula factor model of Murray et al. (2013):
// z_i = Λη_i + ε_i with k factors, and C = D^{-1/2}(ΛΛᵀ+I)D^{-1/2}.
type FactorModel struct {
	K        int
	Loadings LoadingsPrior // NormalLoadings or GDPLoadings; nil means NormalLoadings{}
}

func (FullCorrelation) isModel() {}
func (FactorModel) isModel()     {}

// CorrelationPrior is the prior of a full-correlation model.
type CorrelationPrior interface{ isCorrelationPrior() }

// InverseWishart is the prior V ~ IW(DF, Scale·I) on the working covariance,
// C = Δ⁻¹VΔ⁻¹. Zero fields take sbgcop's defaults DF = p+2, Scale = p+2.
type InverseWishart struct {
	DF    float64
	Scale float64
}

// LKJ is the prior π(C) ∝ |C|^(Eta-1), sampled exactly by an independence
// Metropolis–Hastings correction of the inverse-Wishart draw (sampling.md §5).
// DF is the proposal's inverse-Wishart degrees of freedom (0 means p+2).
type LKJ struct {
	Eta float64
	DF  float64
}

func (InverseWishart) isCorrelationPrior() {}
func (LKJ) isCorrelationPrior()            {}

// LoadingsPrior is the prior on the rows λ_j of the factor loadings.
type LoadingsPrior interface{ isLoadingsPrior() }

// NormalLoadings is λ_jh ~ N(0, Var); zero Var means 1.
type NormalLoadings struct{ Var float64 }

// GDPLoadings is the generalised double Pareto prior GDP(Alpha, Beta) of bfa;
// zero fields mean Alpha = 3, Beta = 1.
type GDPLoadings struct{ Alpha, Beta float64 }

func (NormalLoadings) isLoadingsPrior() {}
func (GDPLoadings) isLoadingsPrior()    {}

// Method is a sampler for the latent columns.
//
// methodNames is the one place where a method is added: a constant here,
// its name (as written after with in a fit) there. Methods, ParseMethod,
// String, compiler.Methods, the kernel's completion and
// `copulang bench samplers` follow; Run and compiler.Plan then decide which
// models it serves.
type Method int

const (
	// Gibbs is Hoff's univariate Gibbs sweep over each column's levels.
	Gibbs Method = iota
	// HMC is the exact HMC column update of package hough (full-correlation model).
	HMC
	// PX is the parameter-expanded Gibbs sampler of the factor model.
	PX
	// Interweave is joint (λ_j, z_j) exact HMC interweaved with a Gibbs sweep (factor model).
	Interweave
)

// methodNames names every Method, indexed by it; read only.
var methodNames = [...]string{Gibbs: "gibbs", HMC: "hmc", PX: "px", Interweave: "interweave"}

// Methods returns every sampler, in order.
func Methods() []Method {
	out := make([]Method, len(methodNames))
	for i := range out {
		out[i] = Method(i)
	}
	return out
}

// ParseMethod returns the method of the given name, as String writes it.
func ParseMethod(name string) (Method, bool) {
	for m, n := range methodNames {
		if n == name {
			return Method(m), true
		}
	}
	return 0, false
}

// String returns the method's name in the language: gibbs, hmc, px or
// interweave.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "unknown"
}

// Spec is everything Run needs: the data, the model, and the run settings.
type Spec struct {
	// Columns holds the data column by column: Columns[j][i] is row i of
	// column j; NaN marks a missing cell. Only the order of a column's values
	// matters.
	Columns [][]float64
	// Names are the column names, used in messages and results.
	Names []string
	Model Model
	// Method is the sampler. For FullCorrelation, Gibbs or HMC; for
	// FactorModel, PX or Interweave (Gibbs on a factor model means PX without
	// expansion is not offered: use PX).
	Method Method
	// ColumnHMC chooses per column whether the exact HMC step is used
	// (true) or a Gibbs update (false); nil means every column uses HMC. With
	// a FullCorrelation model and Method HMC the Gibbs update is Hoff's; with
	// a FactorModel and Method Interweave it is PX's column step (the scale
	// move and the conjugate draw of the column's loadings) in place of the
	// joint (λ_j, z_j) HMC step, followed as for every column by Hoff's
	// update. Set it false for columns with many distinct values, whose HMC
	// trajectories bounce about 0.4n² times. Other methods reject it.
	ColumnHMC []bool
	// Iter is the number of iterations after warm-up per chain; Warmup the
	// number before; Thin keeps every Thin-th post-warm-up draw (0 means 1).
	Iter, Warmup, Thin int
	// Chains is the number of chains, run in parallel; 0 means 1.
	Chains int
	// Seed derives one independent RNG stream per chain.
	Seed uint64
	// TravelTime is the exact-HMC travel time T; 0 means π/2.
	TravelTime float64
	// KeepWarmup stores the warm-up draws of C too, thinned by Thin, in
	// Result.WarmupC (for RMSE-to-truth traces).
	KeepWarmup bool
	// MaxImputed bounds the imputed values a run keeps (missing cells
	// times kept draws of all chains; see Result.ImputeThin); 0 means
	// DefaultMaxImputed.
	MaxImputed int
	// HeldOut lists cells that are missing in Columns but whose values
	// are known: the run scores its prediction of each (see
	// Result.HeldOutProb and CrossValidate).
	HeldOut []HeldOutCell
	// Adapt, with Method HMC on a FullCorrelation model, lets the run choose
	// per column between Hoff's Gibbs update and exact HMC (what the
	// language's auto does): every column starts on Gibbs, and after the
	// first AdaptAfter(Warmup) warm-up iterations the columns that the mixing
	// model of sampling.md §9.2 predicts to be worth it get exact HMC (among
	// those ColumnHMC allows) for the rest of the run. The choice uses every
	// chain's state at that point and is the same for all chains; it is
	// reported in Result.Schedule. With a warm-up too short to adapt in,
	// every column keeps Gibbs.
	Adapt bool
	// BFADefect plants the defect of the R package bfa 0.4 in PX's scale
	// move: the loadings are drawn on the rescaled scale, λ_j ~ N(√r_j·m_j,
	// V_j), but z_j is left unscaled, so the chain does not leave the
	// posterior invariant. It exists to reproduce the PX sampler that
	// Kalaitzis & Silva (2013) compared against (`copulang bench paper`);
	// it is valid only with Method PX on a FactorModel, and Run returns an
	// error otherwise.
	BFADefect bool
	// PaperSamplers runs the factor-model samplers as Kalaitzis & Silva
	// (2013) compared them: without the factor group moves of sampling.md
	// §4.5, which neither bfa's PX nor their interweaved sampler has.
	// `copulang bench paper` sets it so that its runs reproduce the paper's
	// experiment; fit never does. It is valid only on a FactorModel.
	PaperSamplers bool

	// mixing, in tests only, replaces the fitted mixing model (GibbsTau,
	// HMCTau) that an adaptive run predicts from, so that the tests can
	// reach both of adaptSchedule's outcomes whatever the fit says.
	mixing *mixingModel
	// factorBug, in tests only, plants a known error in the factor-model
	// samplers, so that tests through Run (simulation-based calibration)
	// can check that they catch it.
	factorBug factorBug
}

// Progress reports how far a run has come. Run calls the progress callback
// from the chains' goroutines, serialised, at most every 50 ms, and once
// more when every chain has stopped.
type Progress struct {
	Chain   int  // 0-based chain that advanced
	Done    int  // iterations completed by that chain, warm-up included
	Total   int  // Warmup + Iter
	Warmup  bool // some chain is still in warm-up
	Elapsed time.Duration
	// AllDone is the number of iterations completed over all chains, of Chains×Total.
	AllDone, AllTotal int
	// Schedule is an adaptive run's choice once it is made, after the
	// first phase (Result.Schedule); nil before then, and for a run that
	// does not adapt.
	Schedule *Schedule
}

// StepStats counts what the sampler steps did; a chain accumulates them.
type StepStats struct {
	Iterations  int64
	Bounces     int64 // exact-HMC bounces (wall reflections)
	Events      int64 // collision-search events (internal kinetic events included)
	Rejections  int64 // exact-HMC trajectories rejected by the end-of-trajectory check
	Rebuilds    int64 // warm-up rebuilds of an infeasible column from normal scores
	LKJProposed int64
	LKJAccepted int64
	// The collapsed loadings step of PX and Interweave (sampling.md §4.6):
	// moves proposed and accepted.
	LoadingsProposed int64
	LoadingsAccepted int64
}

// Add accumulates o into s.
func (s *StepStats) Add(o StepStats) {
	s.Iterations += o.Iterations
	s.Bounces += o.Bounces
	s.Events += o.Events
	s.Rejections += o.Rejections
	s.Rebuilds += o.Rebuilds
	s.LKJProposed += o.LKJProposed
	s.LKJAccepted += o.LKJAccepted
	s.LoadingsProposed += o.LoadingsProposed
	s.LoadingsAccepted += o.LoadingsAccepted
}

// chainSampler is one chain's state and its transition. Run drives one per
// chain; newFullSampler and newFactorSampler build them.
type chainSampler interface {
	// iterate performs one full iteration of the sampler (all latent
	// columns and the correlation parameters); warmup is true during warm-up.
	iterate(rng *rand.Rand, warmup bool, st *StepStats) error
	// corr writes the current correlation matrix C into dst (p×p, row-major).
	corr(dst []float64)
	// loadings writes the current loadings Λ into dst (p×k, row-major); a
	// full-correlation sampler leaves dst untouched and returns false.
	loadings(dst []float64) bool
	// latent returns the current latent columns Z[j][i] (read-only view).
	latent() [][]float64
	// state returns what the chain's next iterations depend on besides its
	// random stream (a read-only view); restore sets it from a saved one,
	// after checking that it fits this sampler and its data.
	state() chainState
	restore(chainState) error
}

// data is the checked form of a Spec's columns shared by every chain; it is
// read-only once built.
type data struct {
	n, p    int
	columns [][]float64     // as in Spec
	levels  []*hough.Levels // one per column
	names   []string        // column names (Spec.Names, or Y1..Yp)
}

// name returns the name of column j for messages.
func (d *data) name(j int) string {
	if j < len(d.names) {
		return d.names[j]
	}
	return fmt.Sprintf("Y%d", j+1)
}

// latentScaler is implemented by samplers that know the marginal standard
// deviation of each latent column under the current draw (sqrt(V_jj) in the
// full model, sqrt(1+‖λ_j‖²) in the factor model). Imputation uses it to map
// a latent value to the data scale; without it the sample standard deviation
// of the column is used.
type latentScaler interface {
	latentSD(j int) float64
}
