module github.com/zkrecipes/zkrecipes

go 1.26

require (
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/go-zookeeper/zk v1.0.4
	github.com/google/uuid v1.6.0
)
