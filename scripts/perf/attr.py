"""attr.py A B [group|owner] [N]: two Go CPU profiles (A.prof, B.prof), each beside its pair
child's JSON result (A.json, B.json: the acquisitions it counted), compared per acquisition. Each
sample is attributed to the innermost frame of ours on its stack (else go-zookeeper's loop, else
the runtime): "group" sums by package, "owner" by function; the N largest differences, B - A, in
us per acquisition. Session 18 (docs/performance.md): a pair child writes its profile with
-cpuprofile in the measurement build of bench/results/20261127T0230Z-measure-s18.patch."""
import subprocess,sys,json,re,collections
def traces(f):
    out=subprocess.run(['go','tool','pprof','-traces',f+'.prof'],capture_output=True,text=True).stdout
    cur=None;val=0
    for l in out.splitlines():
        if l.startswith('-----'):
            if cur: yield val,cur
            cur=[];val=0;continue
        if cur is None: continue
        m=re.match(r'\s+([\d.]+)(ms|s|us)\s+(\S+)',l)
        if m:
            val=float(m.group(1))*{'ms':1,'s':1000,'us':0.001}[m.group(2)];cur.append(m.group(3));continue
        m=re.match(r'\s+(\S+)',l)
        if m: cur.append(m.group(1))
    if cur: yield val,cur
OURS=('github.com/zkrecipes/zkrecipes/','main.')
def owner(stack):
    for fn in stack:
        if fn.startswith(OURS): 
            # package.func
            return fn.replace('github.com/zkrecipes/zkrecipes/','')
    for fn in stack:
        if 'go-zookeeper' in fn: return 'zk:'+fn.split('.')[-1] if False else 'go-zookeeper('+fn.split('(*Conn).')[-1][:20]+')'
    return 'runtime/other:'+stack[-1][:40] if stack else '?'
def group(stack):
    o=owner(stack)
    if o.startswith(('recipes','framework','watchmgr','driver','retry','internal','main')):
        return o.split('.')[0]
    return o.split(':')[0]
def load(f,fn):
    n=json.load(open(f+'.json'))['cycles']
    c=collections.Counter()
    for v,s in traces(f): c[fn(s)]+=v
    return {k:v*1000/n for k,v in c.items()}
mode=sys.argv[3] if len(sys.argv)>3 else 'group'
fn={'group':group,'owner':owner}[mode]
a=load(sys.argv[1],fn);b=load(sys.argv[2],fn)
print('total us/cycle %.1f %.1f'%(sum(a.values()),sum(b.values())))
for k in sorted(set(a)|set(b),key=lambda k:-abs(b.get(k,0)-a.get(k,0)))[:int(sys.argv[4]) if len(sys.argv)>4 else 25]:
    print('%7.2f %7.2f %+7.2f %s'%(a.get(k,0),b.get(k,0),b.get(k,0)-a.get(k,0),k))
