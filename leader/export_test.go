package leader

import "github.com/zkrecipes/zkrecipes/recipes"

// NewTermOf wraps a granted lease in a term, as a won election does.
func NewTermOf(lease *recipes.Lease) *Term { return newTerm(lease) }
