package chaos

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Env is one run's world: the ensemble, the clients (each with its own
// framework and one proxy per server, so a fault can isolate one client),
// the history, the fence and the ledger of believers.
type Env struct {
	Cluster *zktest.Cluster
	T       time.Duration // the session timeout every client asks for
	H       *History
	Fence   *Fence
	Root    string // every path of the run lives under it
	admin   *framework.Framework
	ledger  *ledger
	clients []*Client
	pins    pinDesk // the nemesis's pins on holders
	// nodeHolds: node path -> the first op that held it (FenceByNode)
	nodeHolds sync.Map
	// extras are closed after the clients: contenders outside the clients (Curator JVMs)
	extras []func()
	reused atomic.Int64 // grants on a node an earlier grant held (FenceByNode)
}

// Client is one ZooKeeper session of the workload, reached through its own
// proxies.
type Client struct {
	Name    string
	FW      *framework.Framework
	proxies []*zktest.Proxy // one per member, in member order
	workers []*worker
	closers []func(ctx context.Context) error // recipes to close before the framework (elections)
}

// NewEnv connects an admin framework (direct, no proxy) to cluster.
func NewEnv(ctx context.Context, cluster *zktest.Cluster, T time.Duration, root string) (*Env, error) {
	h := &History{}
	admin, err := framework.New(cluster.Servers(), framework.WithSessionTimeout(4*T))
	if err != nil {
		return nil, err
	}
	if err := admin.WaitConnected(ctx); err != nil {
		admin.Close()
		return nil, fmt.Errorf("chaos: admin: %w", err)
	}
	return &Env{Cluster: cluster, T: T, H: h, Fence: NewFence(h), Root: root, admin: admin, ledger: newLedger(h)}, nil
}

// AddClient starts a client named name, connected through fresh proxies.
func (e *Env) AddClient(ctx context.Context, name string) (*Client, error) {
	c := &Client{Name: name}
	byAddr := make(map[string]*zktest.Proxy)
	for i := range e.Cluster.Size() {
		p, err := zktest.OpenProxy(e.Cluster.Member(i).Addr())
		if err != nil {
			c.close()
			return nil, err
		}
		c.proxies = append(c.proxies, p)
		byAddr[p.Target()] = p
	}
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		p := byAddr[address]
		if p == nil {
			return nil, fmt.Errorf("chaos: no proxy for %s", address)
		}
		return net.DialTimeout(network, p.Addr(), timeout)
	}
	fw, err := framework.New(e.Cluster.Servers(), framework.WithSessionTimeout(e.T), framework.WithDialer(dial))
	if err != nil {
		c.close()
		return nil, err
	}
	c.FW = fw
	fw.AddListener(func(s framework.ConnectionState) {
		e.H.Add(Event{Proc: name, Kind: State, Detail: s.String()})
	})
	if err := fw.WaitConnected(ctx); err != nil {
		c.close()
		return nil, fmt.Errorf("chaos: client %s: %w", name, err)
	}
	e.clients = append(e.clients, c)
	return c, nil
}

// close closes the client's framework, then its proxies.
func (c *Client) close() {
	for _, f := range c.closers {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = f(ctx) // an election not closed in time stops with its framework
		cancel()
	}
	c.closers = nil
	if c.FW != nil {
		c.FW.Close()
	}
	for _, p := range c.proxies {
		p.Close()
	}
}

// session returns the client's session id and password, read by the proxy
// that carried the session's ConnectResponse.
func (c *Client) session() (int64, []byte, bool) {
	id := c.FW.SessionID()
	for _, p := range c.proxies {
		if pid, pw := p.Session(); pid == id && id != 0 {
			return id, pw, true
		}
	}
	return 0, nil, false
}

// connectedTo reports whether the client has a connection to member i now.
func (c *Client) connectedTo(i int) bool { return c.proxies[i].Connections() > 0 }

// Close closes every client and the admin framework.
func (e *Env) Close() {
	for _, c := range e.clients {
		c.close()
	}
	e.admin.Close()
}

// Admin returns the direct framework used for setup and checks.
func (e *Env) Admin() *framework.Framework { return e.admin }

// Clients returns the clients in creation order.
func (e *Env) Clients() []*Client { return e.clients }
