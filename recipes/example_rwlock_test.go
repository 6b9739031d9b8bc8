package recipes_test

import (
	"context"
	"log"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// Readers share the lock; a writer excludes everyone. The holder of the write
// lock downgrades by taking the read lock with its write lease (Downgrade),
// then releasing the write lease: no queued writer slips in between.
func ExampleInterProcessReadWriteLock() {
	fw, err := framework.New([]string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

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
		log.Print(err)
	}
	// ... read the catalog with other readers ...
	if err := r.Release(ctx); err != nil {
		log.Print(err)
	}
}
