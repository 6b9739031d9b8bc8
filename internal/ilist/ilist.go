package ilist

// Links are an element's place in a List; an element type embeds them in an unexported field.
// Their zero value is "in no list".
type Links[T any] struct{ prev, next *T }

// Accessor finds the Links in an element. It is a type parameter rather than a method of the
// element, so an exported element type grows no method: a zero-size unexported type implements
// it in the element's package.
type Accessor[T any] interface{ Links(*T) *Links[T] }

// List is a doubly linked list of *T whose links A finds in each element. Its zero value is an
// empty list; it must not be copied once in use. An element is in at most one List of the same
// A at a time.
type List[T any, A Accessor[T]] struct {
	head, tail *T
	n          int
}

// links returns x's links.
func (l *List[T, A]) links(x *T) *Links[T] {
	var a A
	return a.Links(x)
}

// Len returns the number of elements in l.
func (l *List[T, A]) Len() int { return l.n }

// Front returns the first element of l, or nil if l is empty.
func (l *List[T, A]) Front() *T { return l.head }

// Back returns the last element of l, or nil if l is empty.
func (l *List[T, A]) Back() *T { return l.tail }

// Next returns the element after x in l, or nil if x is the last or in no list.
func (l *List[T, A]) Next(x *T) *T { return l.links(x).next }

// PushFront links x first; x must be in no list.
func (l *List[T, A]) PushFront(x *T) {
	lx := l.links(x)
	lx.prev, lx.next = nil, l.head
	if l.head != nil {
		l.links(l.head).prev = x
	} else {
		l.tail = x
	}
	l.head = x
	l.n++
}

// PushBack links x last; x must be in no list.
func (l *List[T, A]) PushBack(x *T) {
	lx := l.links(x)
	lx.prev, lx.next = l.tail, nil
	if l.tail != nil {
		l.links(l.tail).next = x
	} else {
		l.head = x
	}
	l.tail = x
	l.n++
}

// Remove unlinks x, and reports whether it was linked: x must be in l or in no list, and a
// second Remove does nothing.
func (l *List[T, A]) Remove(x *T) bool {
	lx := l.links(x)
	if lx.prev == nil && l.head != x {
		return false
	}
	if lx.prev != nil {
		l.links(lx.prev).next = lx.next
	} else {
		l.head = lx.next
	}
	if lx.next != nil {
		l.links(lx.next).prev = lx.prev
	} else {
		l.tail = lx.prev
	}
	*lx = Links[T]{}
	l.n--
	return true
}

// PopFront unlinks the first element of l and returns it, or nil if l is empty. Calling it
// until nil takes every element, in order, each unlinked before its caller sees it.
func (l *List[T, A]) PopFront() *T {
	x := l.head
	if x != nil {
		l.Remove(x)
	}
	return x
}

// Clear unlinks every element of l, leaving it empty.
func (l *List[T, A]) Clear() {
	for l.PopFront() != nil {
	}
}
