package inference

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// resultFormat is the version of the encoding MarshalBinary writes
// (1: draws only; 2: with every chain's state; 3: imputations as level
// numbers; 4: the draws of C, the loadings and the warm-up draws after the
// gob, not in it). UnmarshalResult and ReadResult read formats 2 to 4.
const resultFormat = 4

// afterFormat is the format of what EncodeAfter writes: format 4 of a
// Result that continues another (an extension), holding only what that
// other does not (savedResult.Prefix), which ReadResultAfter reads and
// UnmarshalResult refuses (a copulang that reads formats up to 4 refuses
// it too).
const afterFormat = 5

// savedResult is what MarshalBinary encodes of a Result: its draws and what
// the run did. What the spec says (names, model, method) and what the data
// give (the missing cells, the columns' levels) are not stored: the spec
// passed to UnmarshalResult supplies them, and the stored counts are checked
// against it.
type savedResult struct {
	Format             int
	N, P, K            int
	Warmup, Iter, Thin int
	Seed               uint64
	Chains             int
	// C, Lambda, WarmupC and ZMean, and the latent values and their
	// running sums of States, are nil in the gob of format 4: encodeSaved
	// writes them after it, as the little-endian bits of their values
	// (rawSets), their shapes in Raw. Gob grows the buffer it encodes into
	// in steps of a quarter: the draws of a fit of 50 columns (120 MB) took
	// 730 MB of buffers, 4 s and a fit file 1.3 times their size, and
	// decodeSaved likewise grew its buffers.
	C, Lambda, WarmupC [][][]float64
	Raw                []rawShape // format 4
	ZMean              [][]float64
	Imputed            [][][]float64 // format 2; nil in format 3
	// ImputedCodes (format 3) holds the imputations as the numbers of their
	// columns' levels, chain after chain, draw after draw, cell after
	// cell, in ImputedWidth bytes each (little-endian): an imputed value
	// is always one of its column's observed values, and as a float64 it
	// took about 3 bytes of gob and a quarter of the time to read a survey's
	// fit (80 of 108 MB at 20,000 × 40 with a sixth of the cells missing).
	// The encoding carries them after the gob, ImputedSize bytes, not in
	// it: gob reads a large []byte by growing it in steps (encodeSaved,
	// decodeSaved).
	ImputedCodes []byte // nil in the gob: encodeSaved moves it after
	ImputedSize  int
	ImputedWidth int
	ImputeThin   int // 0 in files written before imputations were thinned: 1
	HeldOutProb  []float64
	Schedule     *Schedule
	Stats        []StepStats
	Iterations   []int
	Interrupted  bool
	Elapsed      time.Duration
	// States, when the Result can be extended, are what Extend continues
	// from; Failed is a chain's sampler failure, which forbids it.
	States []savedChain
	Failed string
	// Prefix (afterFormat) says, for C, the loadings and the warm-up draws
	// (the first three of rawSets), how many of each chain's arrays are
	// those of the Result this one continues, which are not stored: the
	// arrays stored follow them. ImputedPrefix says the same of each
	// chain's imputations, and BaseSum is the CRC-32C of all those arrays
	// and imputations (baseSum), so that they are never taken from
	// another Result than the one they were encoded after.
	Prefix        [][]int
	ImputedPrefix []int
	BaseSum       uint32
}

// savedChain is one chain's state at the end of the run: its random
// stream, its sampler's state and the running sums of the latent means and
// held-out probabilities.
type savedChain struct {
	RNG     []byte
	State   chainState
	ZSum    [][]float64
	ZCount  int
	HeldSum []float64
}

// MarshalBinary encodes r's draws and what its run did (gob), for
// UnmarshalResult to read back in another process, and, when r can be
// extended, every chain's random stream and sampler state, so that the
// Result read back can be extended too (Extendable). It is Encode's
// bytes, in one slice.
func (r *Result) MarshalBinary() ([]byte, error) {
	e, err := r.Encode()
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(make([]byte, 0, e.Size()))
	if _, err := e.WriteTo(b); err != nil {
		return nil, fmt.Errorf("inference: encoding a result: %w", err)
	}
	return b.Bytes(), nil
}

// Encoding is a Result encoded as MarshalBinary encodes it, to be written
// without making the bytes first: the gob of what the run did, encoded,
// and the draws, which WriteTo encodes as it writes them. A fit file of a
// survey of 50,000 rows and 40 columns holds 109 MB of them, which
// MarshalBinary's one slice doubled in memory. It refers to the Result's
// draws: write it before the Result changes (an extension).
type Encoding struct {
	head  []byte
	sets  [][][][]float64 // the float64 arrays after the gob (rawSets)
	codes [][][]byte      // the imputations' level codes, chain by chain
	size  int
}

// Encode returns r's Encoding.
func (r *Result) Encode() (*Encoding, error) {
	s, err := r.saved()
	if err != nil {
		return nil, err
	}
	e, err := encodeSaved(s, r.imputed)
	if err != nil {
		return nil, fmt.Errorf("inference: encoding a result: %w", err)
	}
	return e, nil
}

// EncodeAfter returns the Encoding of r as a continuation of prev, which
// ReadResultAfter reads after prev: r's Encoding without the draws of C,
// of the loadings and of the warm-up, nor the imputations, that begin
// each of r's chains as they begin prev's, bit for bit (an extension's
// chains begin with the draws of the fit it extends). Whatever differs
// (loadings aligned anew over the longer chains, imputations thinned
// anew) is stored whole; the chains' states and latent means always are.
// A fit extended three times then keeps its first draws once, not four
// times over.
func (r *Result) EncodeAfter(prev *Result) (*Encoding, error) {
	s, err := r.saved()
	if err != nil {
		return nil, err
	}
	s.Format = afterFormat
	cur := []*[][][]float64{&s.C, &s.Lambda, &s.WarmupC}
	base := [][][][]float64{prev.C, prev.Lambda, prev.WarmupC}
	s.Prefix = make([][]int, len(cur))
	for k, set := range cur {
		if *set == nil {
			continue
		}
		rest := make([][][]float64, len(*set))
		s.Prefix[k] = make([]int, len(*set))
		for c, ch := range *set {
			n := 0
			if c < len(base[k]) {
				n = commonPrefix(base[k][c], ch, sameBits)
			}
			s.Prefix[k][c], rest[c] = n, ch[n:]
		}
		*set = rest
	}
	imputed := make([][][]byte, len(r.imputed))
	s.ImputedPrefix = make([]int, len(r.imputed))
	for c, ch := range r.imputed {
		n := 0
		if c < len(prev.imputed) && prev.imputeWidth == r.imputeWidth {
			n = commonPrefix(prev.imputed[c], ch, bytes.Equal)
		}
		s.ImputedPrefix[c], imputed[c] = n, ch[n:]
	}
	s.BaseSum = baseSum(prev, s.Prefix, s.ImputedPrefix)
	e, err := encodeSaved(s, imputed)
	if err != nil {
		return nil, fmt.Errorf("inference: encoding a result: %w", err)
	}
	return e, nil
}

// saved is what Encode encodes of r.
func (r *Result) saved() (*savedResult, error) {
	s := savedResult{
		Format: resultFormat, N: r.N, P: r.P, K: r.K,
		Warmup: r.Warmup, Iter: r.Iter, Thin: r.Thin, Seed: r.Seed, Chains: len(r.C),
		C: r.C, Lambda: r.Lambda, WarmupC: r.WarmupC, ZMean: r.ZMean, ImputeThin: r.ImputeThin,
		HeldOutProb: r.HeldOutProb, Schedule: r.Schedule, Stats: r.Stats,
		Iterations: r.Iterations, Interrupted: r.Interrupted, Elapsed: r.Elapsed,
	}
	s.ImputedWidth = r.imputeWidth
	if st := r.run; st != nil {
		if st.failed != nil {
			s.Failed = st.failed.Error()
		}
		for c, cs := range st.samplers {
			rng, err := st.pcgs[c].MarshalBinary()
			if err != nil {
				return nil, fmt.Errorf("inference: encoding a result: %w", err)
			}
			s.States = append(s.States, savedChain{RNG: rng, State: cs.state(), ZSum: r.zsum[c], ZCount: r.zcount[c], HeldSum: r.heldSum[c]})
		}
	}
	return &s, nil
}

// commonPrefix is the number of leading elements of a and b that are the
// same (same).
func commonPrefix[T any](a, b []T, same func(x, y T) bool) int {
	n := 0
	for n < len(a) && n < len(b) && same(a[n], b[n]) {
		n++
	}
	return n
}

// sameBits reports whether a and b hold the same bits: a NaN is the same
// NaN, and 0 is not −0.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// baseSum is the CRC-32C of what a Result encoded after base takes from
// it: the first prefix[k][c] arrays of chain c of its k-th set (C, the
// loadings, the warm-up draws), then the first imputedPrefix[c]
// imputations of chain c, each chain's count first. The counts are within
// base's (checkPrefix).
func baseSum(base *Result, prefix [][]int, imputedPrefix []int) uint32 {
	h := crc32.New(castagnoli)
	var word [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(word[:], x)
		h.Write(word[:])
	}
	sets := [][][][]float64{base.C, base.Lambda, base.WarmupC}
	for k, counts := range prefix {
		for c, n := range counts {
			put(uint64(n))
			for _, v := range sets[k][c][:n] {
				for _, x := range v {
					put(math.Float64bits(x))
				}
			}
		}
	}
	for c, n := range imputedPrefix {
		put(uint64(n))
		for _, v := range base.imputed[c][:n] {
			h.Write(v)
		}
	}
	return h.Sum32()
}

// castagnoli is the CRC-32C table of baseSum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Size is the number of bytes WriteTo writes.
func (e *Encoding) Size() int { return e.size }

// WriteTo writes the encoding to w: the gob, the float64 arrays as the
// little-endian bits of their values, then the imputations' codes, through
// a buffer of 64 KiB.
func (e *Encoding) WriteTo(w io.Writer) (int64, error) {
	var written int64
	buf := make([]byte, 0, 1<<16)
	flush := func() error {
		n, err := w.Write(buf)
		written += int64(n)
		buf = buf[:0]
		return err
	}
	put := func(b []byte) error {
		for len(b) > 0 {
			k := copy(buf[len(buf):cap(buf)], b)
			buf, b = buf[:len(buf)+k], b[k:]
			if len(buf) == cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := put(e.head); err != nil {
		return written, err
	}
	for _, set := range e.sets {
		for _, ch := range set {
			for _, v := range ch {
				for _, x := range v {
					if len(buf)+8 > cap(buf) {
						if err := flush(); err != nil {
							return written, err
						}
					}
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
				}
			}
		}
	}
	for _, ch := range e.codes {
		for _, v := range ch {
			if err := put(v); err != nil {
				return written, err
			}
		}
	}
	return written, flush()
}

// encodeSaved encodes s, whose imputations are the level codes of
// imputed (chain by chain, draw by draw): the gob of s without them (and,
// from format 4, without its float64 arrays: s.rawSets), then those arrays
// as the little-endian bits of their values in the order of s.rawSets,
// their shapes in s.Raw, then the codes as they are (s.ImputedSize says
// how many bytes). Only the gob is encoded here; Encoding.WriteTo encodes
// the rest as it writes it.
func encodeSaved(s *savedResult, imputed [][][]byte) (*Encoding, error) {
	codes := 0
	for _, ch := range imputed {
		for _, v := range ch {
			codes += len(v)
		}
	}
	s.ImputedCodes, s.ImputedSize = nil, codes
	var sets [][][][]float64
	values := 0
	if s.Format >= 4 {
		sets = s.rawSets()
		s.Raw = make([]rawShape, len(sets))
		for k, set := range sets {
			if set == nil {
				continue
			}
			sh := make(rawShape, len(set))
			for c, ch := range set {
				sh[c] = make([]int, len(ch))
				for t, v := range ch {
					sh[c][t] = len(v)
					values += len(v)
				}
			}
			s.Raw[k] = sh
		}
		s.setRaw(make([][][][]float64, len(sets)))
		defer s.setRaw(sets)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return nil, err
	}
	return &Encoding{head: b.Bytes(), sets: sets, codes: imputed, size: b.Len() + 8*values + codes}, nil
}

// rawShape is the shape of a set of float64 arrays that encodeSaved writes
// after the gob: per chain, the length of each of its arrays.
type rawShape [][]int

// rawSets are the float64 arrays of s that format 4 keeps out of the gob,
// each set as chains of arrays (nil for a nil set): the draws of C, the
// loadings and the warm-up, the latent means (one chain of a column each)
// and every chain's latent values and running sums of them (a chain each,
// a column each). These are nearly all of a result's bytes.
func (s *savedResult) rawSets() [][][][]float64 {
	sets := [][][][]float64{s.C, s.Lambda, s.WarmupC, nil, nil, nil}
	if s.ZMean != nil {
		sets[3] = [][][]float64{s.ZMean}
	}
	if s.States != nil {
		sets[4], sets[5] = make([][][]float64, len(s.States)), make([][][]float64, len(s.States))
		for c, st := range s.States {
			sets[4][c], sets[5][c] = st.State.Z, st.ZSum
		}
	}
	return sets
}

// setRaw puts sets, as rawSets gives them, in their places in s. A set
// that is nil leaves its place nil; the latent sets of a chain that s has
// no state of are dropped.
func (s *savedResult) setRaw(sets [][][][]float64) {
	s.C, s.Lambda, s.WarmupC, s.ZMean = sets[0], sets[1], sets[2], nil
	if len(sets[3]) == 1 {
		s.ZMean = sets[3][0]
	}
	for c := range s.States {
		s.States[c].State.Z, s.States[c].ZSum = nil, nil
		if c < len(sets[4]) {
			s.States[c].State.Z = sets[4][c]
		}
		if c < len(sets[5]) {
			s.States[c].ZSum = sets[5][c]
		}
	}
}

// decodeSaved decodes what encodeSaved wrote (or, in format 2, the gob
// alone), the size bytes that r reads, as r reads them: the arrays after
// the gob are read into their places, never held as bytes first (a
// survey's fit file holds over 100 MB of them). Every count the gob gives
// is checked against size before anything is allocated for it.
func decodeSaved(r io.Reader, size int64) (*savedResult, error) {
	var s savedResult
	// A CountingReader is an io.ByteReader, so the decoder reads no
	// further than the gob.
	cr := NewCountingReader(r, 1<<16)
	if err := gob.NewDecoder(cr).Decode(&s); err != nil {
		return nil, err
	}
	if s.ImputedCodes != nil {
		return nil, errors.New("imputations inside the gob (an earlier layout of format 3)")
	}
	rest := size - cr.Count()
	if rest < 0 {
		return nil, fmt.Errorf("a gob of %d bytes in %d", cr.Count(), size)
	}
	if s.Format >= 4 {
		if s.C != nil || s.Lambda != nil || s.WarmupC != nil || s.ZMean != nil ||
			slices.ContainsFunc(s.States, func(st savedChain) bool { return st.State.Z != nil || st.ZSum != nil }) {
			return nil, fmt.Errorf("float64 arrays inside the gob of format %d", s.Format)
		}
		if want := len(s.rawSets()); len(s.Raw) != want {
			return nil, fmt.Errorf("%d sets of arrays after the gob, want %d", len(s.Raw), want)
		}
		var err error
		sets := make([][][][]float64, len(s.Raw))
		buf := make([]byte, 1<<16)
		for k, sh := range s.Raw {
			if sets[k], rest, err = decodeRaw(sh, cr, rest, buf); err != nil {
				return nil, err
			}
		}
		if (sets[4] != nil || sets[5] != nil) && (len(sets[4]) != len(s.States) || len(sets[5]) != len(s.States)) {
			return nil, fmt.Errorf("latent values of %d and %d chains after the gob for %d chains' states", len(sets[4]), len(sets[5]), len(s.States))
		}
		if sets[3] != nil && len(sets[3]) != 1 {
			return nil, fmt.Errorf("%d sets of latent means after the gob", len(sets[3]))
		}
		s.setRaw(sets)
	}
	if int64(s.ImputedSize) != rest {
		return nil, fmt.Errorf("%d bytes of imputations after the gob, want %d", rest, s.ImputedSize)
	}
	s.ImputedCodes = make([]byte, rest)
	if _, err := io.ReadFull(cr, s.ImputedCodes); err != nil {
		return nil, fmt.Errorf("reading the imputations: %w", err)
	}
	return &s, nil
}

// decodeRaw reads a set of arrays of shape sh (nil for a nil set), as
// encodeSaved wrote it, from r, which has left bytes to read, through buf,
// and returns it with the bytes then left. Each chain's arrays share one
// allocation, as a run's draws do.
func decodeRaw(sh rawShape, r io.Reader, left int64, buf []byte) ([][][]float64, int64, error) {
	if sh == nil {
		return nil, left, nil
	}
	out := make([][][]float64, len(sh))
	for c, lengths := range sh {
		total := 0
		for _, n := range lengths {
			// Each bound keeps the total within what is left before it is
			// allocated.
			if n < 0 || int64(n) > left/8-int64(total) {
				return nil, 0, fmt.Errorf("arrays of %d values after the gob, where %d bytes are left", int64(total)+int64(n), left)
			}
			total += n
		}
		flat := make([]float64, total)
		for i := 0; i < total; {
			k := min(len(buf)/8, total-i)
			if _, err := io.ReadFull(r, buf[:8*k]); err != nil {
				return nil, 0, fmt.Errorf("reading arrays after the gob: %w", err)
			}
			for j := range k {
				flat[i+j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
			}
			i += k
		}
		left -= 8 * int64(total)
		ch := make([][]float64, len(lengths))
		for t, n := range lengths {
			ch[t], flat = flat[:n:n], flat[n:]
		}
		out[c] = ch
	}
	return out, left, nil
}

// continueFrom puts back in s, which EncodeAfter wrote after base, what
// it took from base: each chain's leading draws of C, of the loadings, of
// the warm-up and its leading imputations, once the counts are within
// base's and baseSum says they are what s was encoded after.
func (s *savedResult) continueFrom(base *Result) error {
	sets := []*[][][]float64{&s.C, &s.Lambda, &s.WarmupC}
	from := [][][][]float64{base.C, base.Lambda, base.WarmupC}
	if len(s.Prefix) != len(sets) {
		return fmt.Errorf("%d sets of arrays continued, want %d", len(s.Prefix), len(sets))
	}
	for k, counts := range s.Prefix {
		if len(counts) != len(*sets[k]) {
			return fmt.Errorf("%d chains continued of %d", len(counts), len(*sets[k]))
		}
		for c, n := range counts {
			if c >= len(from[k]) || n < 0 || n > len(from[k][c]) {
				return errors.New("it continues draws that the result it extends does not hold")
			}
		}
	}
	if s.ImputedWidth != base.imputeWidth || len(s.ImputedPrefix) > len(base.imputed) {
		return errors.New("it continues imputations that the result it extends does not hold")
	}
	for c, n := range s.ImputedPrefix {
		if n < 0 || n > len(base.imputed[c]) {
			return errors.New("it continues imputations that the result it extends does not hold")
		}
	}
	if baseSum(base, s.Prefix, s.ImputedPrefix) != s.BaseSum {
		return errors.New("it continues another result than the one it is read after")
	}
	for k, counts := range s.Prefix {
		for c, n := range counts {
			(*sets[k])[c] = append(slices.Clip(from[k][c][:n]), (*sets[k])[c]...)
		}
	}
	// The imputations stored are each chain's after its prefix, chain
	// after chain, of ImputedWidth bytes per missing cell: with the C
	// draws whole, each chain's count is known (decodeImputed checks the
	// total).
	if len(s.ImputedPrefix) > 0 {
		var codes []byte
		rest := s.ImputedCodes
		for c, n := range s.ImputedPrefix {
			for _, v := range base.imputed[c][:n] {
				codes = append(codes, v...)
			}
			want := 0
			if len(base.Missing) > 0 && c < len(s.C) {
				want = (imputedDraws(len(s.C[c]), max(s.ImputeThin, 1)) - n) * len(base.Missing) * s.ImputedWidth
			}
			if want < 0 || want > len(rest) {
				return fmt.Errorf("%d bytes of imputations continued, want at least %d", len(rest), want)
			}
			codes, rest = append(codes, rest[:want]...), rest[want:]
		}
		if len(rest) != 0 {
			return fmt.Errorf("%d bytes of imputations left over", len(rest))
		}
		s.ImputedCodes = codes
	}
	return nil
}

// UnmarshalResult reads a Result that MarshalBinary wrote of a run of spec:
// the same data, model, method and settings (the caller makes sure of
// that; a file's fingerprint, say). It checks everything it reads against
// spec and against itself — counts of chains, draws and entries, every C a
// correlation matrix, every imputed value an observed value of its column,
// every chain's state one its sampler can go on from —
// so that corrupt or foreign input is an error, never a Result that makes
// later code fail. spec.Iter is not compared: the stored run's is used (a
// run that Extend continued ran more than its spec asked). A Result that
// could be extended when it was written can be extended when read back, and
// Extend then makes the draws it would have made.
func UnmarshalResult(data []byte, spec Spec) (*Result, error) {
	return readResult(bytes.NewReader(data), int64(len(data)), spec, nil)
}

// ReadResult is UnmarshalResult of the size bytes that r reads, decoded as
// they are read: the bytes are never held whole (a survey's fit file of
// 100 MB doubled the memory of reading it).
func ReadResult(r io.Reader, size int64, spec Spec) (*Result, error) {
	return readResult(r, size, spec, nil)
}

// ReadResultAfter reads, from the size bytes that r reads, a Result that
// EncodeAfter wrote as a continuation of base (an extension of it): the
// draws it took from base are base's, bit for bit, and everything is
// checked as UnmarshalResult checks it. Bytes that MarshalBinary wrote
// are refused, as UnmarshalResult refuses EncodeAfter's, so that neither
// is read as the other; as are those encoded after another Result than
// base.
func ReadResultAfter(base *Result, r io.Reader, size int64, spec Spec) (*Result, error) {
	if base == nil {
		return nil, errors.New("inference: reading a result after none")
	}
	return readResult(r, size, spec, base)
}

// readResult reads a Result of spec from the size bytes of r, after base
// when it continues one (EncodeAfter), otherwise with base nil.
func readResult(rd io.Reader, size int64, spec Spec, base *Result) (*Result, error) {
	sp, err := checkSpec(spec)
	if err != nil {
		return nil, err
	}
	d, err := newData(&sp)
	if err != nil {
		return nil, err
	}
	s, err := decodeSaved(rd, size)
	if err != nil {
		return nil, fmt.Errorf("inference: reading a result: %w", err)
	}
	switch {
	case base == nil && s.Format == afterFormat:
		return nil, errors.New("inference: reading a result: it holds the draws of an extension only, which are read after the fit they extend")
	case base != nil && s.Format != afterFormat:
		return nil, fmt.Errorf("inference: reading an extension: a result of format %d, not the draws of an extension", s.Format)
	case base != nil:
		if err := s.continueFrom(base); err != nil {
			return nil, fmt.Errorf("inference: reading an extension: %w", err)
		}
	case s.Format < 2 || s.Format > resultFormat:
		return nil, fmt.Errorf("inference: a result of format %d, this version reads 2 to %d", s.Format, resultFormat)
	}
	if s.Iter < 1 {
		return nil, fmt.Errorf("inference: reading a result: it ran iter = %d", s.Iter)
	}
	sp.Iter = s.Iter
	r := &Result{
		entries: new(entryMemo),
		checks:  new(checkMemo),
		Names:   sp.Names, N: d.n, P: d.p, Model: sp.Model, Method: sp.Method,
		Warmup: sp.Warmup, Iter: sp.Iter, Thin: sp.Thin, Seed: sp.Seed,
		C: s.C, Lambda: s.Lambda, WarmupC: s.WarmupC, ZMean: s.ZMean, ImputeThin: max(s.ImputeThin, 1),
		HeldOut: sp.HeldOut, HeldOutProb: s.HeldOutProb, Schedule: s.Schedule, Stats: s.Stats,
		Iterations: s.Iterations, Interrupted: s.Interrupted, Elapsed: s.Elapsed,
		levels: d.levels,
	}
	if fm, ok := sp.Model.(FactorModel); ok {
		r.K = fm.K
	}
	for j, lv := range d.levels {
		for _, i := range lv.Missing {
			r.Missing = append(r.Missing, Cell{Row: int(i), Col: j})
		}
	}
	r.imputeWidth = codeWidth(d.levels, r.Missing)
	if s.Format >= 3 {
		r.imputed, err = r.decodeImputed(s, sp.Chains)
	} else {
		r.imputed, err = r.encodeImputed(s.Imputed)
	}
	if err != nil {
		return nil, fmt.Errorf("inference: reading a result: %w", err)
	}
	if err := r.checkSaved(s, &sp); err != nil {
		return nil, fmt.Errorf("inference: reading a result: %w", err)
	}
	if s.States != nil {
		if err := r.restoreRun(s, sp, d); err != nil {
			return nil, fmt.Errorf("inference: reading a result: %w", err)
		}
	}
	return r, nil
}

// restoreRun rebuilds the chains that Extend continues from the saved ones.
func (r *Result) restoreRun(s *savedResult, sp Spec, d *data) error {
	m := sp.Chains
	if len(s.States) != m {
		return fmt.Errorf("it holds the state of %d chains, want %d", len(s.States), m)
	}
	st := &runState{spec: sp, data: d, samplers: make([]chainSampler, m), rngs: make([]*rand.Rand, m), pcgs: make([]*rand.PCG, m)}
	if s.Failed != "" {
		st.failed = errors.New(s.Failed)
	}
	r.zsum, r.zcount, r.heldSum, r.interrupted = make([][][]float64, m), make([]int, m), make([][]float64, m), make([]bool, m)
	// The chains' samplers are built and restored in parallel, as Run's
	// chains sample: each is an iteration's work or more (its start drawn,
	// its latent values checked), 0.4 s a chain at 50,000 × 30 (sampling.md
	// §8, "At survey scale"). The first error, by chain, is reported.
	errs := make([]error, m)
	var wg sync.WaitGroup
	for c, sc := range s.States {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A damaged state is an error, as it was on the caller's
				// goroutine, never a crash of the process.
				if v := recover(); v != nil {
					errs[c] = fmt.Errorf("chain %d: its state cannot be restored: %v", c+1, v)
				}
			}()
			// A sampler is built as Run builds it, from a stream of its
			// own (its random start is then replaced), and set to the
			// saved state.
			cs, err := newChainSampler(d, &st.spec, chainRNG(sp.Seed, c))
			if err != nil {
				errs[c] = err
				return
			}
			if err := cs.restore(sc.State); err != nil {
				errs[c] = fmt.Errorf("chain %d: %w", c+1, err)
				return
			}
			st.samplers[c] = cs
		}()
	}
	wg.Wait()
	for c, sc := range s.States {
		st.pcgs[c] = rand.NewPCG(0, 0)
		if err := st.pcgs[c].UnmarshalBinary(sc.RNG); err != nil {
			return fmt.Errorf("chain %d's random stream: %w", c+1, err)
		}
		st.rngs[c] = rand.New(st.pcgs[c])
		if errs[c] != nil {
			return errs[c]
		}
		// The sums cover the chain's post-warm-up iterations; a held-out
		// cell's sums probabilities, one per iteration.
		if len(sc.ZSum) != r.P || sc.ZCount != max(r.Iterations[c]-sp.Warmup, 0) || len(sc.HeldSum) != len(r.HeldOut) ||
			slices.ContainsFunc(sc.HeldSum, func(v float64) bool { return !(v >= 0 && v <= float64(sc.ZCount)) }) {
			return fmt.Errorf("chain %d's running sums do not fit the data", c+1)
		}
		for _, col := range sc.ZSum {
			if len(col) != r.N || !allFinite(col) {
				return fmt.Errorf("chain %d's running sums do not fit the data", c+1)
			}
		}
		r.zsum[c], r.zcount[c], r.heldSum[c] = sc.ZSum, sc.ZCount, sc.HeldSum
	}
	for c, cs := range st.samplers {
		fs, full := cs.(*fullSampler)
		switch {
		case r.Schedule != nil && (!full || fs.gibbsOnly == nil):
			return errors.New("it has an adaptive schedule but its run does not adapt")
		case full && fs.gibbsOnly != nil:
			if err := fs.checkSchedule(r.Schedule); err != nil {
				return fmt.Errorf("chain %d: %w", c+1, err)
			}
		}
	}
	r.run = st
	return nil
}

// Extendable says why r cannot be extended, or nil: a Result that Run made
// (or UnmarshalResult read with its chains' states), not extended already,
// whose chains all passed warm-up and none of which failed.
func (r *Result) Extendable() error { return r.extendable(1) }

// checkSaved checks a Result read back (from s) against the spec it was
// read for and against itself.
func (r *Result) checkSaved(s *savedResult, sp *Spec) error {
	m := sp.Chains
	switch {
	case s.N != r.N || s.P != r.P || s.K != r.K:
		return fmt.Errorf("it has %d rows, %d columns and %d factors; the data and model have %d, %d and %d", s.N, s.P, s.K, r.N, r.P, r.K)
	case s.Warmup != sp.Warmup || s.Thin != sp.Thin || s.Seed != sp.Seed || s.Chains != m:
		return fmt.Errorf("it ran warmup = %d, thin = %d, seed = %d, chains = %d; the spec asks warmup = %d, thin = %d, seed = %d, chains = %d",
			s.Warmup, s.Thin, s.Seed, s.Chains, sp.Warmup, sp.Thin, sp.Seed, m)
	case len(r.C) != m || len(r.Iterations) != m || len(r.Stats) != m || len(r.imputed) != m:
		return fmt.Errorf("it holds %d chains of draws, %d of iteration counts, %d of statistics and %d of imputations, want %d each", len(r.C), len(r.Iterations), len(r.Stats), len(r.imputed), m)
	case (r.K > 0) != (len(r.Lambda) == m) || (r.K == 0 && r.Lambda != nil):
		return fmt.Errorf("it holds %d chains of loadings for a model with %d factors", len(r.Lambda), r.K)
	case r.WarmupC != nil && len(r.WarmupC) != m:
		return fmt.Errorf("it holds %d chains of warm-up draws, want %d", len(r.WarmupC), m)
	case !(r.Elapsed >= 0):
		return fmt.Errorf("its run took %v", r.Elapsed)
	}
	total := sp.Warmup + sp.Iter
	// A continued interrupted run's chains may each have run a little more
	// than total (Extend); none ran less unless interrupted.
	for c, it := range r.Iterations {
		if it < 0 || it > 1<<40 || (!r.Interrupted && it < total) {
			return fmt.Errorf("chain %d ran %d iterations of %d", c+1, it, total)
		}
	}
	for c, st := range r.Stats {
		if min(st.Iterations, st.Bounces, st.Events, st.Rejections, st.Rebuilds, st.LKJProposed, st.LKJAccepted, st.LoadingsProposed, st.LoadingsAccepted) < 0 || st.LKJAccepted > st.LKJProposed || st.LoadingsAccepted > st.LoadingsProposed {
			return fmt.Errorf("chain %d's statistics are not counts: %+v", c+1, st)
		}
	}
	// Chains are stored cut to equal lengths: every chain's draws, and with
	// them its loadings and imputations, number alike.
	kept := len(r.C[0])
	want := (slices.Min(r.Iterations) - sp.Warmup) / sp.Thin
	if kept > max(want, 0) || !r.Interrupted && kept < want-1 {
		return fmt.Errorf("it holds %d draws per chain of %d iterations after warm-up, thinned by %d", kept, slices.Min(r.Iterations)-sp.Warmup, sp.Thin)
	}
	warm := 0
	if len(r.WarmupC) > 0 {
		warm = len(r.WarmupC[0])
		if warm > sp.Warmup/sp.Thin {
			return fmt.Errorf("it holds %d warm-up draws per chain of a %d-iteration warm-up thinned by %d", warm, sp.Warmup, sp.Thin)
		}
	}
	nm := len(r.Missing)
	imputed := 0
	if nm > 0 {
		imputed = imputedDraws(kept, r.ImputeThin)
	}
	if err := errors.Join(chainLengths("draws of C", r.C, kept, r.P*r.P), chainLengths("draws of the loadings", r.Lambda, kept, r.P*r.K),
		chainLengths("warm-up draws", r.WarmupC, warm, r.P*r.P), chainLengths("imputations", r.imputed, imputed, nm*r.imputeWidth)); err != nil {
		return err
	}
	work := make([]float64, r.P*r.P)
	for _, chains := range [][][][]float64{r.C, r.WarmupC} {
		for c, ch := range chains {
			for t, v := range ch {
				if e := correlationErrors(v, r.P, work); e != nil {
					return fmt.Errorf("chain %d, draw %d of C: %s", c+1, t+1, e[0])
				}
			}
		}
	}
	// The correlation-scale loadings of a draw give its C: C_ij = λ_i·λ_j
	// off the diagonal (in any rotation), with ‖λ_j‖ < 1.
	for c, ch := range r.Lambda {
		for t, v := range ch {
			if !loadingsGive(v, r.C[c][t], r.P, r.K) {
				return fmt.Errorf("chain %d, draw %d of the loadings does not give that draw's C", c+1, t+1)
			}
		}
	}
	if len(r.ZMean) != r.P {
		return fmt.Errorf("it holds latent means of %d columns, want %d", len(r.ZMean), r.P)
	}
	for j, col := range r.ZMean {
		// A run that kept no post-warm-up iteration has NaN means.
		if len(col) != r.N || kept > 0 && !allFinite(col) {
			return fmt.Errorf("the latent means of column %d are not %d numbers", j+1, r.N)
		}
	}
	if len(r.HeldOutProb) != len(r.HeldOut) {
		return fmt.Errorf("it holds %d held-out probabilities for %d held-out cells", len(r.HeldOutProb), len(r.HeldOut))
	}
	for k, v := range r.HeldOutProb {
		if !(v >= 0 && v <= 1) && !(kept == 0 && math.IsNaN(v)) {
			return fmt.Errorf("held-out probability %d is %v", k+1, v)
		}
	}
	if sc := r.Schedule; sc != nil && (len(sc.R2) != r.P || len(sc.HMC) != r.P) {
		return fmt.Errorf("its schedule covers %d and %d columns, want %d", len(sc.R2), len(sc.HMC), r.P)
	}
	return nil
}

// chainLengths checks that each chain of chains holds count arrays of size
// entries (what names them).
func chainLengths[T any](what string, chains [][][]T, count, size int) error {
	for c, ch := range chains {
		if len(ch) != count {
			return fmt.Errorf("chain %d holds %d %s, want %d", c+1, len(ch), what, count)
		}
		for t, v := range ch {
			if len(v) != size {
				return fmt.Errorf("chain %d, %s %d has %d entries, want %d", c+1, what, t+1, len(v), size)
			}
		}
	}
	return nil
}

// loadingsGive reports whether the p×k correlation-scale loadings lam are
// finite, each row of norm below 1, and give the off-diagonal entries of the
// p×p correlation matrix c to within rounding.
func loadingsGive(lam, c []float64, p, k int) bool {
	if !allFinite(lam) {
		return false
	}
	for i := 0; i < p; i++ {
		li := lam[i*k : i*k+k]
		if !(dotK(li, li) < 1) {
			return false
		}
		for j := i + 1; j < p; j++ {
			if math.Abs(dotK(li, lam[j*k:j*k+k])-c[i*p+j]) > 1e-9 {
				return false
			}
		}
	}
	return true
}

// allFinite reports whether every value of v is a finite number.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// encodeImputed makes the level codes of the imputations of a format-2
// result, kept as values. A value that is not an observed value of its
// column is an error; the counts of draws are checkSaved's to check.
func (r *Result) encodeImputed(values [][][]float64) ([][][]byte, error) {
	nm, w := len(r.Missing), r.imputeWidth
	out := make([][][]byte, len(values))
	for c, ch := range values {
		out[c] = make([][]byte, len(ch))
		for t, v := range ch {
			if len(v) != nm {
				return nil, fmt.Errorf("chain %d, imputations %d has %d entries, want %d", c+1, t+1, len(v), nm)
			}
			codes := make([]byte, nm*w)
			for k, x := range v {
				l, ok := slices.BinarySearch(r.levels[r.Missing[k].Col].Values, x)
				if !ok {
					return nil, fmt.Errorf("chain %d, imputation %d: cell (%d, %d) = %v is not an observed value of its column", c+1, t+1, r.Missing[k].Row+1, r.Missing[k].Col+1, x)
				}
				putCode(codes, w, k, l)
			}
			out[c][t] = codes
		}
	}
	return out, nil
}

// decodeImputed reads the imputations of s (format 3) from their level
// codes, of s.ImputedWidth bytes each, into codes of r.imputeWidth: chains
// × the imputed draws of C's kept draws (checkSaved checks those counts) ×
// the missing cells. A level number that is not one of its column's is an
// error.
func (r *Result) decodeImputed(s *savedResult, chains int) ([][][]byte, error) {
	if s.Imputed != nil {
		return nil, errors.New("format 3 with imputations as numbers")
	}
	if s.ImputedWidth != 1 && s.ImputedWidth != 2 && s.ImputedWidth != 4 {
		return nil, fmt.Errorf("imputations in %d bytes each", s.ImputedWidth)
	}
	nm := len(r.Missing)
	draws := 0
	if nm > 0 && len(r.C) > 0 {
		draws = imputedDraws(len(r.C[0]), max(s.ImputeThin, 1))
	}
	w, mw := s.ImputedWidth, r.imputeWidth
	if len(s.ImputedCodes) != chains*draws*nm*w {
		return nil, fmt.Errorf("it holds %d bytes of imputations, want %d chains × %d draws × %d cells × %d", len(s.ImputedCodes), chains, draws, nm, w)
	}
	out := make([][][]byte, chains)
	codes := s.ImputedCodes
	for c := range out {
		out[c] = make([][]byte, draws)
		// Codes of the width r keeps stay where decodeSaved read them,
		// each chain's in one allocation; others are copied to that width.
		var flat []byte
		if w == mw {
			flat = codes[: draws*nm*mw : draws*nm*mw]
		} else {
			flat = make([]byte, draws*nm*mw)
		}
		for t := range out[c] {
			v := flat[t*nm*mw : (t+1)*nm*mw : (t+1)*nm*mw]
			for k, cell := range r.Missing {
				l := getCode(codes, w, k)
				if n := r.levels[cell.Col].NumLevels(); l >= n {
					return nil, fmt.Errorf("chain %d, imputation %d: cell (%d, %d) is level %d of %d", c+1, t+1, cell.Row+1, cell.Col+1, l+1, n)
				}
				if w != mw {
					putCode(v, mw, k, l)
				}
			}
			codes = codes[nm*w:]
			out[c][t] = v
		}
	}
	return out, nil
}
