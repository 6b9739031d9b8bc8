package driver

import (
	"errors"
	"fmt"
)

// ErrForeignNode is the error (wrapped, naming the node) of a lock directory that holds a node no
// contender made: one whose name no lock knows, or one that is not ephemeral (a squatter). Such a
// node would block the lock, or take a semaphore's slot, for ever: it is never silently a
// contender. Remove it (zkCli.sh delete PATH) once you know who made it.
var ErrForeignNode = errors.New("driver: a node that is no contender stands in the lock directory")

// ForeignNodeError names a foreign node of a listing (see ErrForeignNode) and why it is one. It
// matches ErrForeignNode with errors.Is.
type ForeignNodeError struct {
	Name   string // the child's name
	Reason string // why it is no contender, in words
}

func (e *ForeignNodeError) Error() string {
	return fmt.Sprintf("%v: %q: %s", ErrForeignNode, e.Name, e.Reason)
}

// Unwrap returns ErrForeignNode.
func (e *ForeignNodeError) Unwrap() error { return ErrForeignNode }

// HasSequence reports whether name ends in the 10-digit sequence ZooKeeper appends to a
// sequential node's name: every contender of the built-in drivers does.
func HasSequence(name string) bool {
	_, ok := sequenceOf(name)
	return ok
}
