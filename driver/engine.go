package driver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// keyed is a child with its precomputed sort key and its position in the listing.
type keyed struct {
	key, name string
	pos       int
}

// A child whose key is a sequence (seqOf) sorts as one number: the sequence above its position
// in the listing (the tie-break), seq<<posBits | pos. A sequence has at most ten digits (below
// 2^34), so a listing of up to 2^posBits children packs without loss, and the numbers sort with
// slices.Sort's ordered sort, no comparison function called (issue 27).
const posBits = 30

// seqDigits is the width of ZooKeeper's sequence suffix.
const seqDigits = 10

// Sort returns a new slice with children sorted stably, byte-wise on d.SortKey; children is
// not modified and nothing is filtered out. A nil d sorts by the whole names. It computes
// each key once, breaks ties by listing position (hence stable) and costs O(n log n) time
// and one allocation, the result, for up to 64 sequential children (two above that, or when
// some key is not a sequence: then the keyed sort's two). When every key is ten decimal
// digits (every sequential contender's), the keys sort as numbers, which for keys of one width
// is the byte-wise order, at a fraction of its cost: the contended acquire sorts the whole
// directory on every listing (issue 27).
func Sort(d Driver, children []string) []string {
	if len(children) >= 1<<posBits {
		return sortKeyed(d, children)
	}
	var small [64]uint64 // a directory of up to 64 contenders sorts without allocating its keys
	ns := small[:0]
	if len(children) > len(small) {
		ns = make([]uint64, 0, len(children))
	}
	ns = ns[:len(children)]
	for i, c := range children {
		key := c
		if d != nil {
			key = d.SortKey(c)
		}
		seq, ok := seqOf(key)
		if !ok {
			return sortKeyed(d, children)
		}
		ns[i] = seq<<posBits | uint64(i)
	}
	slices.Sort(ns)
	sorted := make([]string, len(ns))
	for i, n := range ns {
		sorted[i] = children[n&(1<<posBits-1)]
	}
	return sorted
}

// sortKeyed is Sort for any keys: byte-wise on the key strings.
func sortKeyed(d Driver, children []string) []string {
	ks := make([]keyed, len(children))
	for i, c := range children {
		ks[i] = keyed{key: c, name: c, pos: i}
		if d != nil {
			ks[i].key = d.SortKey(c)
		}
	}
	slices.SortFunc(ks, compareKeyed)
	sorted := make([]string, len(ks))
	for i, k := range ks {
		sorted[i] = k.name
	}
	return sorted
}

// seqOf returns key as a number when it is exactly seqDigits decimal digits.
func seqOf(key string) (uint64, bool) {
	if len(key) != seqDigits {
		return 0, false
	}
	var n uint64
	for i := range len(key) {
		c := key[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + uint64(c)
	}
	return n, true
}

// compareKeyed orders byte-wise by key, then by listing position.
func compareKeyed(a, b keyed) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.pos, b.pos)
}

// Evaluate sorts children (see Sort), finds ourNode among them by exact name, and returns
// d's Decision with the View it was made from. ourNode may be a full path: only its last
// segment is compared. input is the input node's data for an InputDriver (else nil). A
// missing own node returns an error wrapping ErrOwnNodeMissing (with View.Index -1); a nil d
// returns ErrNilDriver.
func Evaluate(d Driver, children []string, ourNode string, input []byte) (Decision, View, error) {
	if d == nil {
		return Decision{}, View{Index: -1}, ErrNilDriver
	}
	name := ourNode[strings.LastIndexByte(ourNode, '/')+1:]
	v := View{Sorted: Sort(d, children), Input: input}
	v.Index = slices.Index(v.Sorted, name)
	if v.Index < 0 {
		return Decision{}, v, fmt.Errorf("%w: %q", ErrOwnNodeMissing, name)
	}
	return d.Decide(v), v, nil
}

// inRange reports whether v.Index points into v.Sorted.
func inRange(v View) bool { return v.Index >= 0 && v.Index < len(v.Sorted) }

// KeyAfter is Curator's fixForSorting: the part of child after the last occurrence of
// lockName, or child itself if lockName does not occur or is empty.
func KeyAfter(child, lockName string) string {
	if lockName == "" {
		return child
	}
	if seq, ok := sequenceOf(child); ok && lockNameBeforeSequence(child, lockName) {
		return seq
	}
	if i := strings.LastIndex(child, lockName); i >= 0 {
		return child[i+len(lockName):]
	}
	return child
}

// lockNameBeforeSequence reports whether child's last occurrence of lockName (not empty) is
// right before its last ten characters, found with one comparison instead of a search through
// every child of every listing (issue 27). It is, when lockName sits there and does not end in a
// digit: an occurrence further right would end inside those ten characters, which for the usual
// child (lockName and a 10-digit sequence) are digits. The caller checks that they are.
func lockNameBeforeSequence(child, lockName string) bool {
	i := len(child) - sequenceDigits - len(lockName)
	return i >= 0 && !isDigit(lockName[len(lockName)-1]) && child[i:i+len(lockName)] == lockName
}

// rwSortKey is the read-write lock's key: strip through "__READ__", then through
// "__WRIT__", so reads and writes sort by one sequence.
func rwSortKey(child string) string {
	return KeyAfter(KeyAfter(child, ReadLockName), WriteLockName)
}

// sequenceDigits is the width of the counter ZooKeeper appends to a sequential node's name.
const sequenceDigits = 10

// SequenceKey is a sort key that every contender shares, whatever its lock name: the 10-digit
// sequence ZooKeeper appended to a sequential node's name, so children sort in the order they
// were created. A name that does not end in 10 digits is its own key (and sorts after every
// sequence). Use it when contenders of one directory may name their nodes differently.
func SequenceKey(child string) string {
	if seq, ok := sequenceOf(child); ok {
		return seq
	}
	return child
}

// isDigit reports whether c is an ASCII decimal digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// sequenceOf returns the trailing 10 digits of name, if it has them.
func sequenceOf(name string) (string, bool) {
	if len(name) < sequenceDigits {
		return "", false
	}
	seq := name[len(name)-sequenceDigits:]
	for i := 0; i < len(seq); i++ {
		if seq[i] < '0' || seq[i] > '9' {
			return "", false
		}
	}
	return seq, true
}

// CheckGrant refuses a grant that jumps the queue: it returns an error wrapping ErrKeyOrder
// when a contender created before ours (a smaller sequence) sorts after ours in v. Then the
// driver's key is not one that every contender shares, and each may decide it holds. Nodes
// without a sequence (a fixed name) are not compared. It costs one pass over the nodes after
// ours; the acquire loop calls it once per grant.
func CheckGrant(v View) error {
	if !inRange(v) {
		return nil
	}
	ours, ok := sequenceOf(v.Sorted[v.Index])
	if !ok {
		return nil
	}
	for _, c := range v.Sorted[v.Index+1:] {
		if seq, ok := sequenceOf(c); ok && seq < ours {
			return &OrderError{Ours: v.Sorted[v.Index], Earlier: c}
		}
	}
	return nil
}

// OrderError is CheckGrant's error: Ours sorts before Earlier, a contender created before it.
// It matches ErrKeyOrder with errors.Is.
type OrderError struct {
	Ours, Earlier string // child names
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("%v: %q sorts before %q, created earlier: give every contender one sort key (driver.SequenceKey)",
		ErrKeyOrder, e.Ours, e.Earlier)
}

// Unwrap returns ErrKeyOrder.
func (e *OrderError) Unwrap() error { return ErrKeyOrder }
