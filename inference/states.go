package inference

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// ErrNoChainStates is Extendable's answer for a Result that holds no
// chains to continue: one not made by Run, nor read back with its chains'
// states (read from bytes WithoutStates made, say). AdoptChains gives
// such a Result the chains of a run that made the same draws.
var ErrNoChainStates = errors.New("inference: this Result was not made by Run (nor read back with its chains' states), so it has no chains to continue")

// StatelessEncoding is an encoding of a Result (MarshalBinary's or
// EncodeAfter's) without its chains' states: WithoutStates makes it from
// the encoding's bytes as they lie in a file, which it copies as it
// writes them, leaving out the states.
type StatelessEncoding struct {
	head []byte
	src  io.ReaderAt
	// keep are the byte ranges of src, after its gob, written after head.
	keep [][2]int64
	size int64
}

// WithoutStates returns the encoding whose size bytes src holds
// (MarshalBinary's, Encode's or EncodeAfter's, of format 4 or later)
// without the chains' states it holds, which are most of a large fit's
// bytes (every chain's latent values and their running sums, 2 × n × p
// numbers a chain): what it reads back as is what the encoding reads back
// as, draw for draw, bit for bit, but with no chains to continue
// (ErrNoChainStates). It returns nil when the encoding holds no states,
// or is of an earlier format (2 or 3, which keep them inside the gob):
// those bytes are then to be kept as they are. Only the gob at the start
// is decoded; the draws are copied from src when the encoding is written.
func WithoutStates(src io.ReaderAt, size int64) (*StatelessEncoding, error) {
	cr := NewCountingReader(io.NewSectionReader(src, 0, size), 0)
	var s savedResult
	if err := gob.NewDecoder(cr).Decode(&s); err != nil {
		return nil, fmt.Errorf("inference: reading a result's gob: %w", err)
	}
	if s.Format < 4 || s.States == nil {
		return nil, nil
	}
	if len(s.Raw) != 6 {
		return nil, fmt.Errorf("inference: %d sets of arrays after a result's gob, want 6", len(s.Raw))
	}
	// The sets' bytes, in rawSets' order, then the imputations'.
	lengths := make([]int64, len(s.Raw))
	for k, sh := range s.Raw {
		for _, ch := range sh {
			for _, n := range ch {
				if n < 0 || int64(n) > size/8 {
					return nil, fmt.Errorf("inference: an array of %d values in a result of %d bytes", n, size)
				}
				lengths[k] += 8 * int64(n)
			}
		}
	}
	at := cr.Count()
	states := lengths[4] + lengths[5]
	draws := lengths[0] + lengths[1] + lengths[2] + lengths[3]
	if at+draws+states+int64(s.ImputedSize) != size || s.ImputedSize < 0 {
		return nil, fmt.Errorf("inference: a result of %d bytes, want %d", size, at+draws+states+int64(s.ImputedSize))
	}
	s.States, s.Raw[4], s.Raw[5] = nil, nil, nil
	var head bytes.Buffer
	if err := gob.NewEncoder(&head).Encode(&s); err != nil {
		return nil, fmt.Errorf("inference: encoding a result: %w", err)
	}
	e := &StatelessEncoding{head: head.Bytes(), src: src,
		keep: [][2]int64{{at, at + draws}, {at + draws + states, size}}}
	e.size = int64(head.Len()) + draws + int64(s.ImputedSize)
	return e, nil
}

// Size is the number of bytes WriteTo writes.
func (e *StatelessEncoding) Size() int { return int(e.size) }

// WriteTo writes the encoding to w: the gob without the states, then the
// draws and imputations copied from the bytes WithoutStates was given.
func (e *StatelessEncoding) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(e.head)
	written := int64(n)
	for _, r := range e.keep {
		if err != nil {
			break
		}
		var k int64
		k, err = io.Copy(w, io.NewSectionReader(e.src, r[0], r[1]-r[0]))
		written += k
	}
	return written, err
}

// AdoptChains gives r, which holds no chains to continue
// (ErrNoChainStates), the chains of from: a run of the same spec that
// made the same draws, bit for bit (Run with r's Iter, which makes the
// draws Run and Extends of the same total make), so that r can be
// extended as the Result it was read from could. The chains move to r:
// from can no longer be extended. r keeps its own draws, loadings
// (aligned, say) and imputations (thinned by its extensions), which its
// extension continues.
func (r *Result) AdoptChains(from *Result) error {
	if err := r.Extendable(); !errors.Is(err, ErrNoChainStates) {
		return fmt.Errorf("inference: adopting chains: the result has chains of its own (%v)", err)
	}
	if err := from.Extendable(); err != nil {
		return fmt.Errorf("inference: adopting chains: %w", err)
	}
	switch {
	case r.Interrupted || from.Interrupted:
		return errors.New("inference: adopting chains: an interrupted run")
	case r.N != from.N || r.P != from.P || r.K != from.K || r.Warmup != from.Warmup || r.Thin != from.Thin || r.Seed != from.Seed ||
		!slices.Equal(r.Iterations, from.Iterations) || len(r.C) != len(from.C):
		return errors.New("inference: adopting chains: a run of other settings")
	}
	for c := range r.C {
		if len(r.C[c]) != len(from.C[c]) {
			return errors.New("inference: adopting chains: other draws")
		}
		for t, v := range r.C[c] {
			if !sameBits(v, from.C[c][t]) {
				return fmt.Errorf("inference: adopting chains: chain %d's draw %d of C differs", c+1, t+1)
			}
		}
	}
	for j, col := range r.ZMean {
		for i, v := range col {
			if math.Float64bits(v) != math.Float64bits(from.ZMean[j][i]) {
				return errors.New("inference: adopting chains: other latent means")
			}
		}
	}
	r.run, r.zsum, r.zcount, r.heldSum, r.interrupted = from.run, from.zsum, from.zcount, from.heldSum, from.interrupted
	from.run, from.zsum, from.heldSum, from.moved = nil, nil, nil, true
	return nil
}

// DrawsSum is the CRC-32C of r's draws of C, of the loadings and of the
// warm-up, and of its imputations, each chain's count first (baseSum over
// all of them): Results of the same draws, bit for bit, have the same sum
// whatever their chains' states, and what EncodeAfter encodes after the
// one reads after the other (ReadResultAfter), as it reads after no
// Result of another sum but with probability 2⁻³².
func (r *Result) DrawsSum() uint32 {
	sets := [][][][]float64{r.C, r.Lambda, r.WarmupC}
	prefix := make([][]int, len(sets))
	for k, set := range sets {
		prefix[k] = make([]int, len(set))
		for c, ch := range set {
			prefix[k][c] = len(ch)
		}
	}
	imputed := make([]int, len(r.imputed))
	for c, ch := range r.imputed {
		imputed[c] = len(ch)
	}
	return baseSum(r, prefix, imputed)
}
