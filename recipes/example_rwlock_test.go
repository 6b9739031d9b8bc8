package recipes_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// Readers share the lock; a writer excludes everyone. The holder of the write lock downgrades
// by taking the read lock with its write lease (Downgrade), then releasing the write lease: no
// queued writer slips in between.
func ExampleReadLock_Downgrade() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	rw, err := recipes.NewReadWriteLock(fw, "/locks/catalog", recipes.WithNodeData([]byte("indexer-1")))
	if err != nil {
		log.Fatal(err)
	}
	w, err := rw.WriteLock().Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// ... rebuild the catalog ...
	r, err := rw.ReadLock().Downgrade(ctx, w)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Release(ctx); err != nil {
		log.Fatal(err)
	}
	// ... read the catalog; other readers may join, writers wait ...
	other, err := rw.ReadLock().Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	_, err = rw.WriteLock().TryAcquire(ctx)
	fmt.Println("writer refused while read:", errors.Is(err, recipes.ErrLocked))
	for _, l := range []*recipes.Lease{other, r} {
		if err := l.Release(ctx); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// writer refused while read: true
}
