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
	if sd, ok := d.(standardDriver); ok && sd.maxLeases == 1 {
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

// choose is Choose for d, one lease, by selection, in one pass over children. Each child's place
// is the order Sort gives it: its key's sequence, then its listing position. The node ahead is
// the greatest place below ours, and our index the count of places below ours. ok is false when
// our node is not listed or some key is not a sequence: Evaluate then says so, or sorts by the
// keys' bytes. No grant here jumps the queue (CheckGrant): a standard driver's key is a suffix
// of the name, so a key that is ten digits is the name's sequence, and every child placed after
// ours has a sequence no smaller than ours.
func (d standardDriver) choose(children []string, name string) (dec Decision, grantErr error, ok bool) {
	ours, ok := d.keySeq(name)
	if !ok {
		return Decision{}, nil, false
	}
	pos, index, ahead, aheadSeq := -1, 0, -1, uint64(0)
	for i, c := range children {
		if pos < 0 && c == name {
			pos = i
			continue
		}
		s, ok := d.keySeq(c)
		if !ok {
			return Decision{}, nil, false
		}
		// A key equal to ours places the child below ours when it is listed before our node;
		// of two equal keys below ours the one listed later is placed later.
		if s < ours || (s == ours && pos < 0) {
			index++
			if ahead < 0 || s >= aheadSeq {
				ahead, aheadSeq = i, s
			}
		}
	}
	switch {
	case pos < 0:
		return Decision{}, nil, false
	case index == 0:
		return Decision{Holds: true}, nil, true
	}
	return Decision{WatchNode: children[ahead], GoneHolds: index == 1 && !d.rw}, nil, true
}

// keySeq returns d.SortKey(c) as a number, when it is a sequence. For the usual child, the lock
// name and ten digits, the key is those digits, read eight at a time.
func (d standardDriver) keySeq(c string) (uint64, bool) {
	if !d.rw && d.lockName != "" && lockNameBeforeSequence(c, d.lockName) {
		return parseSequence(c) // KeyAfter's usual case: the key is the last ten characters
	}
	return seqOf(d.SortKey(c))
}

// parseSequence returns the number that the last ten characters of s spell, when they are all
// decimal digits: the first eight checked and converted as one word (SWAR), since every
// contender's name is parsed on every listing of the contended path (issue 27).
func parseSequence(s string) (uint64, bool) {
	if len(s) < sequenceDigits {
		return 0, false
	}
	t := s[len(s)-sequenceDigits:]
	x := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	const zeros, high, six = 0x3030303030303030, 0xF0F0F0F0F0F0F0F0, 0x0606060606060606
	// Every byte is 0x30-0x3F, and adding 6 carries none of them past 0x3F: each is '0'-'9'.
	if x&high != zeros || (x+six)&high != zeros {
		return 0, false
	}
	d8, d9 := t[8]-'0', t[9]-'0'
	if d8 > 9 || d9 > 9 {
		return 0, false
	}
	x -= zeros                               // eight digits, the first in the low byte
	x = (x*10 + x>>8) & 0x00FF00FF00FF00FF   // four two-digit numbers
	x = (x*100 + x>>16) & 0x0000FFFF0000FFFF // two four-digit numbers
	x = (x*10000 + x>>32) & 0xFFFFFFFF       // one eight-digit number
	return x*100 + uint64(d8)*10 + uint64(d9), true
}
