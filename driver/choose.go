package driver

import "strings"

// Choose is Evaluate followed, when the decision grants (Holds or GoneHolds), by CheckGrant, for
// a caller that needs the decision but not the View: the acquire loop, on every listing. It
// returns Evaluate's error as err, CheckGrant's as grantErr, and the same Decision. For the
// standard drivers with one lease (Exclusive, Write, Standard(name, 1)) over a listing whose keys
// are all sequences, it finds the node ahead in one pass over children, with no sort and no
// allocation, where Evaluate sorts the whole directory (O(n log n) and a slice) to read one
// neighbour (issue 27). Any other driver or listing goes through Evaluate.
func Choose(d Driver, children []string, ourNode string, input []byte) (dec Decision, grantErr, err error) {
	if sd, ok := d.(standardDriver); ok && sd.maxLeases == 1 && len(children) < 1<<posBits {
		name := ourNode[strings.LastIndexByte(ourNode, '/')+1:]
		if dec, grantErr, ok := sd.choose(children, name); ok {
			return dec, grantErr, nil
		}
	}
	dec, v, err := Evaluate(d, children, ourNode, input)
	if err == nil && dec.Err == nil && (dec.Holds || dec.GoneHolds) {
		grantErr = CheckGrant(v)
	}
	return dec, grantErr, err
}

// choose is Choose for d, one lease, by selection. Each child's place is the number Sort orders
// it by (its key's sequence above its listing position), so the node ahead is the greatest place
// below ours, and our index the count of places below ours. ok is false when our node is not
// listed or some key is not a sequence: Evaluate then says so, or sorts by the keys' bytes.
func (d standardDriver) choose(children []string, name string) (dec Decision, grantErr error, ok bool) {
	pos := -1
	for i, c := range children {
		if c == name {
			pos = i
			break
		}
	}
	if pos < 0 {
		return Decision{}, nil, false
	}
	seq, ok := seqOf(d.SortKey(name))
	if !ok {
		return Decision{}, nil, false
	}
	ours := seq<<posBits | uint64(pos)
	index, ahead, aheadPlace := 0, -1, uint64(0)
	for i, c := range children {
		s, ok := seqOf(d.SortKey(c))
		if !ok {
			return Decision{}, nil, false
		}
		if place := s<<posBits | uint64(i); place < ours {
			index++
			if ahead < 0 || place > aheadPlace {
				ahead, aheadPlace = i, place
			}
		}
	}
	if index == 0 {
		dec = Decision{Holds: true}
	} else {
		dec = Decision{WatchNode: children[ahead], GoneHolds: index == 1 && !d.rw}
	}
	if dec.Holds || dec.GoneHolds {
		grantErr = d.checkAfter(children, name, ours)
	}
	return dec, grantErr, true
}

// checkAfter is CheckGrant for choose: among the children placed after ours, the first in that
// order whose name's sequence is below our name's is an OrderError.
func (d standardDriver) checkAfter(children []string, name string, ours uint64) error {
	seq, ok := sequenceOf(name)
	if !ok {
		return nil
	}
	earlier, earliest := -1, uint64(0)
	for i, c := range children {
		s, _ := seqOf(d.SortKey(c)) // every key is a sequence: choose checked
		place := s<<posBits | uint64(i)
		if place <= ours || (earlier >= 0 && place > earliest) {
			continue
		}
		if cs, ok := sequenceOf(c); ok && cs < seq {
			earlier, earliest = i, place
		}
	}
	if earlier < 0 {
		return nil
	}
	return &OrderError{Ours: name, Earlier: children[earlier]}
}
