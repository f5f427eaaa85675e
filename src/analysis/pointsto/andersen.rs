//! A native solver for the points-to fixpoint of `rules/andersen.dl` (its "Stratum 2" and
//! the derived outputs). The rule file is the specification: linking, models and wrapper
//! detection (`rules/lib/andersen_prep.dl`) still run on the rule engine, as
//! `rules/andersen_native.dl`, whose outputs are what this solver reads; and
//! `tests/andersen_native.rs` proves the two give the same tuples on every fixture.
//!
//! The fixpoint is the classic inclusion-constraint graph with difference propagation:
//! nodes are the pointer nodes, the memory cells `(object, offset)` and a few helper nodes;
//! edges copy points-to sets (shifting offsets for field edges); loads, stores, calls and
//! memory copies add edges as the addresses and callees they depend on gain locations.
//! Points-to sets are sets of dense location ids (`LocSet`: bitsets once large), so a copy
//! edge moves a difference in one pass over words. The worklist runs in waves, in the
//! topological order of the last cycle search.

use std::hash::Hasher;

use anyhow::{Result, anyhow, bail};
use roaring::RoaringBitmap;

use super::locset::{self, LocSet, SetPool};

use super::solution::Builder;
use super::provenance::Provenance;
use crate::analysis::rows::{lib_andersen_prep as prep_rows, lib_models as models};
use crate::analysis::unit::{Context, Explain};
use crate::analysis::session::Tables;
use crate::engine::Symbols;
use crate::facts::{FactSet, rows};

type HashMap<K, V> = crate::fasthash::FastMap<K, V>;
type HashSet<K> = crate::fasthash::FastSet<K>;

/// A location: object symbol and offset (-1: unknown).
type Loc = (u32, i32);

/// Cycles of copy edges are searched for after at most this many new copy edges. Loads and
/// stores through a heap blob close cycles all the time; collapsing them often is what lets
/// SQLite finish (every 100,000 edges: 135 s; 10,000: 195 s; doubling the interval each
/// time, as before: over 10 minutes).
const CYCLE_SEARCH_EVERY: usize = 100_000;
/// Bytes of bitset chunks allocated since equal chunks and sets were last made to share
/// their memory, above which they are shared again ([`SetPool`]).
const SHARE_SETS_AFTER: usize = 128 << 20;
/// Up to this many edges, a node finds a duplicate edge by scanning its list: most nodes
/// have few, and hashing every edge cost a tenth of the time with contexts.
const SCANNED_EDGES: usize = 8;
type Node = u32;
/// No node (yet).
const NO_NODE: Node = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Edge {
    Copy(Node),
    /// Constant offset, bounded by the object's size and the offset cap.
    Field(Node, i32),
    /// The same for an `inbounds` getelementptr: a location beyond one past its object's
    /// end is poison and dropped (`inbounds_field`).
    Inbounds(Node, i32),
    /// Any offset becomes -1.
    Unknown(Node),
    /// Pointer arithmetic in a loop (`looping_field`): a constant offset in a collapsed
    /// array or a typed object, at a field's start in other sized objects, -1 elsewhere.
    Loop(Node, i32),
    /// A variable index (`pt_offset_stride`, by its index in `Solver::strides`): the
    /// constant part in a collapsed array whose element size divides the stride, -1
    /// elsewhere.
    Stride(Node, u32),
}

/// What a node's new locations trigger.
#[derive(Clone, Copy)]
enum Trigger {
    /// `to = *node` (`whole`: aggregate result, reads every offset).
    Load {
        to: Node,
        whole: bool,
    },
    /// `*node = value` (`whole`: aggregate value, or va_start: stored at -1).
    Store {
        value: Node,
        whole: bool,
    },
    /// Each location (o, f) of `node`: the memory of o at f holds (o, -1)
    /// (`model_out_self`).
    SelfStore,
    /// `node` is the callee operand of a call.
    Callee {
        call: u32,
    },
    /// `node` is the argument of an external call whose functions the external calls back
    /// (`Prep::callbacks[model]`).
    Callback {
        call: u32,
        model: u32,
    },
    /// `node` is the source or destination of memory copy `copy` (a pseudo-object).
    CopyFrom {
        copy: u32,
    },
    CopyTo {
        copy: u32,
    },
    /// `*node = value` for a constructor's vtable store (`store`), except into the
    /// locations a later store of the object's own constructor overwrites.
    VptrStore {
        value: Node,
        store: u32,
    },
}

/// A standing request on an object: connect each of its cells, present and future.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Sub {
    /// Every cell (-1 included) copies into `to`.
    All(Node),
    /// Cell g with min <= g < max copies into `(target, g + delta)` (-1 when `delta` is
    /// unknown, and checked against the target's size when `bounded`); cell -1 into
    /// `(target, -1)`.
    Shift {
        target: u32,
        delta: Option<i32>,
        min: i32,
        max: i32,
        bounded: bool,
    },
}

/// One memory-copy instruction (or modelled copying call).
struct MemCopy {
    /// The copying instruction (a symbol).
    instr: u32,
    length: Option<i32>,
    /// The pseudo-object holding the copied contents by offset from the source position.
    pseudo: u32,
    /// (node, is source) pairs already triggered.
    nodes: HashSet<(Node, bool)>,
}

/// What a helper node of the solver stands for, as `--explain` names it.
#[derive(Clone, Copy)]
enum Helper {
    /// Everything the memory of this object (instance) holds ([`Solver::whole`]).
    Whole(u32),
    /// A fresh object (instance) that a call stores through its argument.
    StoredFresh(u32),
    /// What the memory of a model's argument holds (function name).
    ArgumentMemory(u32),
    /// Anywhere in what a model's argument points to (function name).
    IntoArgument(u32),
    /// The nodes a linked-structure model links (function name).
    Links(u32),
    /// What any call of a function receives (its name).
    AnyCallArgument(u32),
    /// The variadic arguments of a function (its symbol).
    Varargs(u32),
    /// What a `va_list` refers to.
    VaList,
}

/// Which offsets into an object are exact (`object_size`, `object_field` and
/// `collapsed_object` in the prep rules).
#[derive(Clone)]
enum Layout {
    /// Every offset below the size; pointer arithmetic in a loop lands exactly only on
    /// these offsets, sorted (`loop_field`: where fields of the declared type begin).
    Sized(i32, std::rc::Rc<[i32]>),
    /// Only these, sorted (escaped objects, at the fields their declared type has).
    Fields(std::rc::Rc<[i32]>),
    /// Every offset, modulo the element size (arrays of structs, heap objects typed by use).
    Collapsed(i32),
}

impl Layout {
    /// The element size of a collapsed object.
    fn element(&self) -> Option<i32> {
        match *self {
            Layout::Collapsed(elem) => Some(elem),
            _ => None,
        }
    }
}

struct Prep {
    linked: HashMap<u32, Vec<u32>>,
    looping: HashSet<u32>,
    inbounds: HashSet<u32>,
    /// Offsets above these are outside the object (`poison_bound`).
    poison_bound: HashMap<u32, i32>,
    data_nodes: HashSet<u32>,
    /// Loads from stack slots read flow-sensitively (`flow_slot_load`), and the (load
    /// result, stored value) copies that replace them (`slot_value`).
    flow_slot_loads: HashSet<u32>,
    slot_values: Vec<(u32, u32)>,
    code: HashSet<u32>,
    wrapper: HashSet<u32>,
    /// Objects with exact offsets; the others are field-insensitive (offset -1 only).
    layouts: HashMap<u32, Layout>,
    wrapper_offsets: HashMap<u32, Vec<i32>>,
    copy_length: HashMap<u32, i32>,
    wrapper_inner: HashMap<u32, Vec<u32>>,
    /// Out-wrappers: their out-parameters, with the offsets each receives.
    out_wrapper: HashMap<u32, Vec<(i32, Vec<i32>)>>,
    /// Stores into `*out` and (call, argument) pairs passing `out` on, that calls of
    /// out-wrappers stand for.
    out_wrapper_stores: HashSet<u32>,
    out_chain_args: HashSet<(u32, i32)>,
    /// (store, object, offset) of `overwritten_vptr`, and its stores.
    overwritten_vptr: HashSet<(u32, u32, i32)>,
    vptr_stores: HashSet<u32>,
    external: HashMap<u32, u32>,
    unmodelled: HashSet<u32>,
    variadic: HashMap<u32, i32>,
    external_globals: Vec<u32>,
    /// Indirect calls (by call symbol) with their function type, and the function types
    /// each call type may reach.
    indirect_type: HashMap<u32, u32>,
    callable: HashSet<(u32, u32)>,
    /// Calls whose callees run in the empty context (`megamorphic_call`).
    megamorphic: HashSet<u32>,
    max_offset: i32,
    roots: Vec<u32>,
    /// The functions instantiated in the empty context when there are contexts.
    context_entries: Vec<u32>,
    /// Model tables by function name symbol.
    alloc: HashSet<u32>,
    out_alloc: HashMap<u32, Vec<i32>>,
    out_alloc_in: HashMap<u32, Vec<i32>>,
    /// Allocators whose heap memory points into itself (`model_alloc_linked`).
    alloc_linked: HashSet<u32>,
    return_arg: HashMap<u32, Vec<i32>>,
    return_into_arg: HashMap<u32, Vec<i32>>,
    return_into_arg_any_call: HashMap<u32, Vec<i32>>,
    return_load_arg: HashMap<u32, Vec<i32>>,
    /// The `external` object of the library storage a call of the name returns.
    static_storage: HashMap<u32, u32>,
    returned_storage: HashSet<u32>,
    copy_contents: HashMap<u32, Vec<(i32, i32)>>,
    scatter_contents: HashMap<u32, Vec<(i32, i32)>>,
    out_into_arg: HashMap<u32, Vec<(i32, i32)>>,
    out_self: HashMap<u32, Vec<i32>>,
    /// Link-field offsets of node-linking functions (`model_links`).
    links: HashMap<u32, Vec<i32>>,
    throw: HashMap<u32, Vec<i32>>,
    /// Callback models (`model_calls_back`), and their indexes by function name.
    callbacks: Vec<Callback>,
    callbacks_of: HashMap<u32, Vec<u32>>,
    /// The program's definitions that calls of an external name call back, with the key
    /// of their callback model (`defined_callback`).
    defined_callbacks: HashMap<u32, Vec<(i32, u32)>>,
    /// The globals whose functions calls of an external name call back, with the key of
    /// their callback model (`global_callback`).
    global_callbacks: HashMap<u32, Vec<(i32, u32)>>,
    /// Library storage (`model_keep` and its kin), by the storage's `external` object: the
    /// objects each name's calls make; (argument, object) pairs kept, whose memory is
    /// kept, and that receive what is kept; what results receive.
    kept_storage: HashMap<u32, Vec<u32>>,
    keep: HashMap<u32, Vec<(i32, u32)>>,
    keep_contents: HashMap<u32, Vec<(i32, u32)>>,
    out_kept: HashMap<u32, Vec<(i32, u32)>>,
    return_kept: HashMap<u32, Vec<u32>>,
}

/// An external function that calls back what its argument `func` points to (`levels`: what
/// that many reads of whole objects reach from it), passing the `params` to those
/// parameters, and keeping what they return in the storages `returns_kept`. For the
/// program's definitions or a global's functions that it calls (`Prep::defined_callbacks`,
/// `Prep::global_callbacks`), `func` is a key that no argument has.
struct Callback {
    name: u32,
    func: i32,
    levels: i32,
    params: Vec<Param>,
    returns_kept: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Param {
    param: i32,
    source: ParamSource,
}

#[derive(Clone, Copy)]
enum ParamSource {
    /// The call's argument.
    Arg(i32),
    /// A pointer somewhere into what the argument points to.
    Into(i32),
    /// What the memory the argument points to holds.
    Contents(i32),
    /// A pointer somewhere into what the memory the argument points to holds.
    IntoContents(i32),
    /// What a library storage keeps (its object).
    Kept(u32),
    /// The library storage's object itself.
    Storage(u32),
}

/// One points-to constraint of the facts, by symbols: instantiated once (context
/// insensitive, and global-level ones) or once per context of the function that owns it.
#[derive(Clone, Copy)]
enum Con {
    AddressOf { node: u32, obj: u32 },
    Copy { to: u32, from: u32 },
    Field { to: u32, base: u32, offset: i32 },
    Unknown { to: u32, base: u32 },
    Stride { to: u32, base: u32, offset: i32, stride: i32 },
    Load { to: u32, addr: u32 },
    Store { instr: u32, addr: u32, value: u32 },
    Initializer { global: u32, offset: i32, node: u32 },
    Memcpy { instr: u32, dst: u32, src: u32 },
    PtrToInt { node: u32 },
    IntToPtr { node: u32 },
    VaStart { list: u32, func: u32 },
    VaArg { to: u32, list: u32 },
    Exception { to: u32 },
    Call { instr: u32, callee: u32 },
    CallArg { instr: u32, index: i32, node: u32 },
    CallResult { instr: u32, node: u32 },
    IntCallArg { instr: u32, index: i32, node: u32 },
    IntCallResult { instr: u32, node: u32 },
}

/// Context sensitivity (`--context`): contexts are interned sequences of at most `depth`
/// elements, most recent first; context 0 is the empty one. With depth 0 every context is
/// 0 and object instances are the objects' symbols themselves (the insensitive path).
struct Contexts {
    mode: Context,
    depth: usize,
    caller: bool,
    elems: Vec<Vec<u32>>,
    ids: HashMap<Vec<u32>, u32>,
    pushed: HashMap<(u32, u32), u32>,
    /// Object instances (heap context, object symbol) by id, when depth > 0.
    insts: Vec<(u32, u32)>,
    inst_ids: HashMap<(u32, u32), u32>,
    /// Constraints of each defined function, instantiated per context (depth > 0).
    groups: HashMap<u32, Vec<Con>>,
    /// Owner of each node (`pt_node`) that belongs to a defined function.
    owner: HashMap<u32, u32>,
    stack_objects: HashSet<u32>,
    /// Function instances, in the order they were reached; and those not instantiated yet.
    instances: Vec<(u32, u32)>,
    instance_set: HashSet<(u32, u32)>,
    pending: Vec<(u32, u32)>,
    /// (call, callee context, function) of every call edge.
    edges: Vec<(u32, u32, u32)>,
}

impl Contexts {
    fn new(ctx: Context) -> Contexts {
        Contexts {
            mode: ctx,
            depth: ctx.depth as usize,
            caller: ctx.caller,
            elems: vec![Vec::new()],
            ids: HashMap::from_iter([(Vec::new(), 0)]),
            pushed: HashMap::default(),
            insts: Vec::new(),
            inst_ids: HashMap::default(),
            groups: HashMap::default(),
            owner: HashMap::default(),
            stack_objects: HashSet::default(),
            instances: Vec::new(),
            instance_set: HashSet::default(),
            pending: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// `elem` prepended to context `ctx`, truncated to the depth.
    fn push(&mut self, elem: u32, ctx: u32) -> u32 {
        if self.depth == 0 {
            return 0;
        }
        if let Some(&c) = self.pushed.get(&(elem, ctx)) {
            return c;
        }
        let mut v = Vec::with_capacity(self.depth);
        v.push(elem);
        v.extend(self.elems[ctx as usize].iter().take(self.depth - 1));
        let next = self.elems.len() as u32;
        let id = *self.ids.entry(v.clone()).or_insert(next);
        if id == next {
            self.elems.push(v);
        }
        self.pushed.insert((elem, ctx), id);
        id
    }

    /// The object instance (hctx, obj); the object itself when insensitive.
    fn inst(&mut self, hctx: u32, obj: u32) -> u32 {
        if self.depth == 0 {
            return obj;
        }
        let next = self.insts.len() as u32;
        let id = *self.inst_ids.entry((hctx, obj)).or_insert(next);
        if id == next {
            self.insts.push((hctx, obj));
        }
        id
    }

    /// The symbol of object instance `o`.
    fn obj(&self, o: u32) -> u32 {
        if self.depth == 0 {
            o
        } else {
            self.insts[o as usize].1
        }
    }

    /// Function instance (func, ctx), queued to be instantiated once.
    fn reach(&mut self, func: u32, ctx: u32) {
        if self.instance_set.insert((func, ctx)) {
            self.instances.push((func, ctx));
            self.pending.push((func, ctx));
        }
    }

    /// Context `ctx` as a symbol's text: `[]`, `[e1 | e2]`.
    fn spell(&self, ctx: u32, sym: &Symbols) -> String {
        let elems: Vec<&str> = (self.elems[ctx as usize].iter())
            .map(|&e| sym.resolve(e))
            .collect();
        format!("[{}]", elems.join(" | "))
    }
}

struct Solver {
    sym: Symbols,
    prep: Prep,
    cx: Contexts,
    /// Defined functions (depth > 0: those instantiated per context).
    defined: HashSet<u32>,
    functions: HashSet<u32>,
    /// Function types by function symbol.
    signature: HashMap<u32, u32>,
    aggregate: HashSet<u32>,
    /// Named nodes (pointer nodes) by (symbol, context), and their symbols and contexts by
    /// node.
    named: HashMap<(u32, u32), Node>,
    node_name: Vec<Option<u32>>,
    node_ctx: Vec<u32>,
    /// Nodes the program dereferences or offsets (`data_node`): they hold no function's
    /// code. Never merged with others, since what they hold is filtered.
    data_node: Vec<bool>,
    cells: HashMap<Loc, Node>,
    /// Cells of each object (and of each memory copy's pseudo-object), by offset.
    object_cells: HashMap<u32, Vec<(i32, Node)>>,
    subs: HashMap<u32, Vec<Sub>>,
    sub_set: HashSet<(u32, Sub)>,
    /// (copy id × 2 + is source, location id) pairs subscribed ([`Solver::subscribe_copy`]).
    copy_fired: HashSet<(u32, u32)>,
    /// Locations by dense id: points-to sets are bitmaps of these ids.
    locs: Vec<Loc>,
    /// The layout of each location's object, by location id.
    loc_layout: Vec<Option<Layout>>,
    /// The `poison_bound` of each location's object (`i32::MAX` if none), by location id.
    loc_bound: Vec<i32>,
    loc_ids: HashMap<Loc, u32>,
    /// The cell of each location, by location id (`NO_NODE` until asked for): what
    /// [`Solver::cell`] gives, without hashing (a load or store asks once per location).
    loc_cell: Vec<Node>,
    /// Where a constant offset takes each location: by offset, the id of location `id`
    /// moved (`Field` and `Inbounds` edges; `u32::MAX` until asked for). The blob moves
    /// through every field edge a location at a time.
    shifted: HashMap<i32, Vec<u32>>,
    /// The ids of locations at offset -1.
    unknown_locs: LocSet,
    /// The ids of locations in a function's code (`code_object`).
    code_locs: LocSet,
    pts: Vec<LocSet>,
    /// Equal bitsets in `pts` share their memory; `changed` lists the nodes whose bitset
    /// changed since it was last pooled (`is_changed` by node), and `shared_at` what
    /// [`locset::allocated_bytes`] was then.
    pool: SetPool,
    changed: Vec<Node>,
    shared_at: usize,
    is_changed: Vec<bool>,
    /// What each node gained since it was last processed.
    delta: Vec<LocSet>,
    edges: Vec<Vec<Edge>>,
    /// The edges of the nodes with more than `SCANNED_EDGES`, to find duplicates (the
    /// others scan their list).
    edge_set: HashSet<(Node, Edge)>,
    /// The (constant offset, stride) pairs of `Edge::Stride`.
    strides: Vec<(i32, i32)>,
    stride_ids: HashMap<(i32, i32), u32>,
    triggers: Vec<Vec<Trigger>>,
    /// The nodes to process in the next wave.
    worklist: Vec<Node>,
    queued: Vec<bool>,
    /// Topological rank from the last cycle search (sources high, sinks and newer nodes 0).
    rank: Vec<u32>,
    /// Union-find over nodes: nodes on a cycle of copy edges share one representative.
    rep: Vec<Node>,
    /// Copy edges added since the last cycle search.
    new_copy_edges: usize,
    // Calls (one per call instruction and context).
    call_index: HashMap<(u32, u32), u32>,
    call_sym: Vec<u32>,
    call_ctx: Vec<u32>,
    /// The function that holds each call (depth > 0).
    call_func: Vec<u32>,
    call_args: Vec<Vec<(i32, Node)>>,
    call_result: Vec<Option<Node>>,
    /// Wide integers by the memory that holds them (`pt_int_call_arg`, `pt_int_call_result`).
    call_int_args: Vec<Vec<(i32, Node)>>,
    call_int_result: Vec<Option<Node>>,
    /// Parameter and returned node symbols by function, and their wide-integer kin.
    params: HashMap<u32, Vec<(i32, u32)>>,
    returns: HashMap<u32, Vec<u32>>,
    int_params: HashMap<u32, Vec<(i32, u32)>>,
    int_returns: HashMap<u32, Vec<u32>>,
    call_edges: HashSet<(u32, u32)>,
    /// Calls back from external calls: (call, model, function).
    callbacks: HashSet<(u32, u32, u32)>,
    /// Helper nodes shared by every call of one external name.
    any_call_arg: HashMap<u32, Node>,
    thrown: Node,
    int_escaped: Node,
    external_objects: HashSet<u32>,
    /// Library storages that do not point into themselves ([`Solver::storage`]).
    storage_objects: HashSet<u32>,
    /// The node each (address, whole, is load) reads into or writes from.
    access: HashMap<(Node, bool, bool), Node>,
    /// Globals whose initializer has a pointer at an offset (not -1).
    initialized_fields: HashSet<u32>,
    // Memory copies: (destination node, source node) by copy id; pseudo-object symbols.
    copies: Vec<MemCopy>,
    copy_index: HashMap<(u32, u32), u32>,
    /// Pseudo-objects of memory copies (not reported).
    copy_objects: HashSet<u32>,
    /// While explaining (`--explain`): where each node first got the object asked about.
    provenance: Option<Provenance>,
    /// Each object's node of its whole contents ([`Solver::whole`]).
    whole: HashMap<u32, Node>,
    /// While explaining: what the helper nodes stand for.
    helpers: HashMap<Node, Helper>,
}

impl Solver {
    /// The node of symbol `sym` in context `ctx`.
    fn node(&mut self, sym: u32, ctx: u32) -> Node {
        // A pair, not one number: the hasher's low bits must depend on the context too.
        let key = (sym, ctx);
        if let Some(&n) = self.named.get(&key) {
            return n;
        }
        let n = self.new_node(Some(sym));
        self.node_ctx[n as usize] = ctx;
        self.named.insert(key, n);
        n
    }

    /// A node that no constraint names; `--explain` calls it by `what`.
    fn helper(&mut self, what: Helper) -> Node {
        let n = self.new_node(None);
        if self.provenance.is_some() {
            self.helpers.insert(n, what);
        }
        n
    }

    fn new_node(&mut self, name: Option<u32>) -> Node {
        let n = self.pts.len() as Node;
        self.pts.push(LocSet::default());
        self.is_changed.push(false);
        self.delta.push(LocSet::default());
        self.edges.push(Vec::new());
        self.triggers.push(Vec::new());
        self.queued.push(false);
        self.rank.push(0);
        self.rep.push(n);
        self.node_name.push(name);
        self.node_ctx.push(0);
        let data = name.is_some_and(|s| self.prep.data_nodes.contains(&s));
        self.data_node.push(data);
        n
    }

    /// The representative, without path compression.
    fn rep_of(&self, mut n: Node) -> Node {
        while self.rep[n as usize] != n {
            n = self.rep[n as usize];
        }
        n
    }

    fn find(&mut self, n: Node) -> Node {
        let mut r = n;
        while self.rep[r as usize] != r {
            r = self.rep[r as usize];
        }
        let mut m = n;
        while self.rep[m as usize] != r {
            let next = self.rep[m as usize];
            self.rep[m as usize] = r;
            m = next;
        }
        r
    }

    /// An exact offset into `obj`, if it has a known size that holds it (in a collapsed
    /// array, modulo its element size; in an escaped object with declared fields, only
    /// where one begins); else -1.
    fn bounded(&self, obj: u32, off: i64) -> i32 {
        self.exact(self.prep.layouts.get(&self.cx.obj(obj)), off)
    }

    /// [`Solver::bounded`] in the object of location `id`, whose layout is kept by id: a
    /// field edge moves every location it carries.
    fn bounded_at(&self, id: u32, off: i64) -> i32 {
        self.exact(self.loc_layout[id as usize].as_ref(), off)
    }

    fn exact(&self, layout: Option<&Layout>, off: i64) -> i32 {
        if off < 0 {
            return -1;
        }
        match layout {
            Some(&Layout::Collapsed(elem)) => (off % elem as i64) as i32,
            _ if off > self.prep.max_offset as i64 => -1,
            Some(Layout::Fields(fields)) if fields.binary_search(&(off as i32)).is_ok() => {
                off as i32
            }
            Some(&Layout::Sized(size, _)) if off < size as i64 => off as i32,
            _ => -1,
        }
    }

    fn loc_id(&mut self, loc: Loc) -> u32 {
        if let Some(&i) = self.loc_ids.get(&loc) {
            return i;
        }
        let i = self.locs.len() as u32;
        self.locs.push(loc);
        self.loc_cell.push(NO_NODE);
        let layout = self.prep.layouts.get(&self.cx.obj(loc.0)).cloned();
        self.loc_layout.push(layout);
        let bound = self.prep.poison_bound.get(&self.cx.obj(loc.0));
        self.loc_bound.push(bound.copied().unwrap_or(i32::MAX));
        self.loc_ids.insert(loc, i);
        if self.prep.code.contains(&self.cx.obj(loc.0)) {
            self.code_locs.insert(i);
        }
        if loc.1 < 0 {
            self.unknown_locs.insert(i);
        }
        if let Some(p) = &mut self.provenance {
            p.location(i, self.cx.obj(loc.0));
        }
        i
    }

    fn add_loc(&mut self, n: Node, loc: Loc) {
        let id = self.loc_id(loc);
        self.add_loc_id(n, id);
    }

    /// Adds location `id` to representative `n`.
    fn add_loc_id(&mut self, n: Node, id: u32) {
        let n = self.find(n);
        if self.data_node[n as usize] && self.code_locs.contains(id) {
            return;
        }
        if self.pts[n as usize].insert(id) {
            self.changed(n);
            if let Some(p) = &mut self.provenance {
                p.gained_one(n, id);
            }
            self.delta[n as usize].insert(id);
            self.enqueue(n);
        }
    }

    /// Adds the locations of `set` to representative `n`.
    fn add_locs(&mut self, n: Node, set: &LocSet) {
        let data;
        let set = match self.data_node[n as usize] {
            true => {
                data = set.split(&self.code_locs).1;
                &data
            }
            false => set,
        };
        let new = self.pts[n as usize].add_all(set);
        if new.is_empty() {
            return;
        }
        self.changed(n);
        if let Some(p) = &mut self.provenance {
            p.gained(n, &new);
        }
        let delta = &mut self.delta[n as usize];
        if delta.is_empty() {
            *delta = new;
        } else {
            delta.add_all(&new);
        }
        self.enqueue(n);
    }

    /// Notes that the set of `n` changed: it may now equal another set.
    fn changed(&mut self, n: Node) {
        if matches!(self.pts[n as usize], LocSet::Dense { .. })
            && !std::mem::replace(&mut self.is_changed[n as usize], true)
        {
            self.changed.push(n);
        }
    }

    /// Makes the changed bitsets share their memory with equal ones.
    fn share_sets(&mut self) {
        for n in std::mem::take(&mut self.changed) {
            self.is_changed[n as usize] = false;
            self.pool.share(&mut self.pts[n as usize]);
        }
        self.shared_at = locset::allocated_bytes();
        self.pool.sweep();
    }

    fn enqueue(&mut self, n: Node) {
        if !self.queued[n as usize] {
            self.queued[n as usize] = true;
            self.worklist.push(n);
        }
    }

    /// Propagates `set` (locations of the edge's source) along edge `e`; `split` is `set`
    /// split into the locations at -1 and the others, once for all of a node's edges.
    fn propagate(&mut self, e: Edge, set: &LocSet, split: &mut Option<(LocSet, LocSet)>) {
        match e {
            Edge::Copy(t) => {
                let t = self.find(t);
                self.add_locs(t, set);
            }
            Edge::Field(t, _)
            | Edge::Inbounds(t, _)
            | Edge::Unknown(t)
            | Edge::Loop(t, _)
            | Edge::Stride(t, _) => {
                let t = self.find(t);
                let unknown_locs = &self.unknown_locs;
                let (unknown, known) = split.get_or_insert_with(|| set.split(unknown_locs));
                match e {
                    // An `inbounds` offset above an object's size leaves it from any offset.
                    Edge::Inbounds(_, k) if k > 0 => {
                        for id in &*unknown {
                            if !self.beyond_end(id, 0, k) {
                                self.add_loc(t, self.locs[id as usize]);
                            }
                        }
                    }
                    // Locations at -1 stay where they are: one bitmap operation for those.
                    _ => self.add_locs(t, unknown),
                }
                for id in &*known {
                    let f = self.locs[id as usize].1;
                    if matches!(e, Edge::Inbounds(_, k) if self.beyond_end(id, f, k)) {
                        continue;
                    }
                    if let Edge::Field(_, k) | Edge::Inbounds(_, k) = e {
                        let moved = self.shifted_loc(id, k);
                        self.add_loc_id(t, moved);
                        continue;
                    }
                    let (t, l) = self.transform(e, id);
                    self.add_loc(t, l);
                }
            }
        }
    }

    /// The id of location `id` moved by a `Field` or `Inbounds` edge of offset `k` (see
    /// `transform`, where both move it alike).
    fn shifted_loc(&mut self, id: u32, k: i32) -> u32 {
        if let Some(&moved) = self.shifted.get(&k).and_then(|v| v.get(id as usize))
            && moved != u32::MAX
        {
            return moved;
        }
        let (_, l) = self.transform(Edge::Field(NO_NODE, k), id);
        let moved = self.loc_id(l);
        let v = self.shifted.entry(k).or_default();
        if v.len() <= id as usize {
            v.resize(id as usize + 1, u32::MAX);
        }
        v[id as usize] = moved;
        moved
    }

    /// Whether offset `f + k` is past the end of location `id`'s object (`poison_bound`).
    fn beyond_end(&self, id: u32, f: i32, k: i32) -> bool {
        f as i64 + k as i64 > self.loc_bound[id as usize] as i64
    }

    /// Where edge `e` takes location `id`.
    fn transform(&self, e: Edge, id: u32) -> (Node, Loc) {
        let (o, f) = self.locs[id as usize];
        let layout = self.loc_layout[id as usize].as_ref();
        let collapsed = || layout.and_then(Layout::element);
        match e {
            Edge::Copy(t) => (t, (o, f)),
            Edge::Unknown(t) => (t, (o, -1)),
            Edge::Field(t, k) | Edge::Inbounds(t, k) => {
                let off = if f < 0 {
                    -1
                } else {
                    self.bounded_at(id, f as i64 + k as i64)
                };
                (t, (o, off))
            }
            Edge::Loop(t, k) => {
                let h = f as i64 + k as i64;
                let off = match layout {
                    _ if f < 0 => -1,
                    // `bounded_object`: collapsed or typed
                    Some(Layout::Collapsed(_) | Layout::Fields(_)) => self.bounded_at(id, h),
                    // `loop_field`
                    Some(Layout::Sized(_, fields)) => i32::try_from(h)
                        .ok()
                        .filter(|h| fields.binary_search(h).is_ok())
                        .unwrap_or(-1),
                    _ => -1,
                };
                (t, (o, off))
            }
            Edge::Stride(t, i) => {
                let (k, stride) = self.strides[i as usize];
                let off = match collapsed() {
                    Some(elem) if f >= 0 && stride % elem == 0 => {
                        self.bounded_at(id, f as i64 + k as i64)
                    }
                    _ => -1,
                };
                (t, (o, off))
            }
        }
    }

    fn add_edge(&mut self, from: Node, e: Edge) {
        let from = self.find(from);
        let e = match e {
            Edge::Copy(t) => {
                let t = self.find(t);
                if t == from {
                    return;
                }
                Edge::Copy(t)
            }
            other => other,
        };
        let list = &self.edges[from as usize];
        let new = if list.len() < SCANNED_EDGES {
            !list.contains(&e)
        } else {
            if list.len() == SCANNED_EDGES {
                self.edge_set.extend(list.iter().map(|&x| (from, x)));
            }
            self.edge_set.insert((from, e))
        };
        if !new {
            return;
        }
        if matches!(e, Edge::Copy(_)) {
            self.new_copy_edges += 1;
        }
        self.edges[from as usize].push(e);
        let set = self.pts[from as usize].clone();
        let before = self.propagating_from(Some(from));
        self.propagate(e, &set, &mut None);
        self.propagating_from(before);
    }

    fn add_trigger(&mut self, n: Node, t: Trigger) {
        let n = self.find(n);
        // Loads from one address share a node for what they read, and stores to one
        // address a node for what they write: one edge per location for all of them.
        let shared = match t {
            Trigger::Load { to, whole } => Some((to, whole, true)),
            Trigger::Store { value, whole } => Some((value, whole, false)),
            _ => None,
        };
        let Some((end, whole, load)) = shared else {
            return self.fire_all(n, t);
        };
        let d = match self.access.get(&(n, whole, load)) {
            Some(&d) => d,
            None => {
                let d = self.new_node(None);
                self.access.insert((n, whole, load), d);
                let t = if load {
                    Trigger::Load { to: d, whole }
                } else {
                    Trigger::Store { value: d, whole }
                };
                self.fire_all(n, t);
                d
            }
        };
        let (from, to) = if load { (d, end) } else { (end, d) };
        self.add_edge(from, Edge::Copy(to));
    }

    fn fire_all(&mut self, n: Node, t: Trigger) {
        self.triggers[n as usize].push(t);
        let set = self.pts[n as usize].clone();
        for id in &set {
            self.fire(t, id);
        }
    }

    /// The cell of location `id`: [`Solver::cell`] of its object and offset.
    fn loc_cell(&mut self, id: u32) -> Node {
        let c = self.loc_cell[id as usize];
        if c != NO_NODE {
            return c;
        }
        let (o, f) = self.locs[id as usize];
        let c = self.cell(o, f);
        self.loc_cell[id as usize] = c;
        c
    }

    /// The cell `(obj, off)`, created (and connected to the object's subscriptions) on first use.
    fn cell(&mut self, obj: u32, off: i32) -> Node {
        if let Some(&n) = self.cells.get(&(obj, off)) {
            return n;
        }
        let n = self.new_node(None);
        self.cells.insert((obj, off), n);
        self.object_cells.entry(obj).or_default().push((off, n));
        // By index, not a copy of the list: a blob object gathers millions of
        // subscriptions. Those added meanwhile connect the new cell themselves.
        let count = self.subs.get(&obj).map_or(0, Vec::len);
        for i in 0..count {
            let s = self.subs[&obj][i];
            self.connect(s, off, n);
        }
        n
    }

    fn connect(&mut self, s: Sub, off: i32, cell: Node) {
        match s {
            Sub::All(to) => self.add_edge(cell, Edge::Copy(to)),
            Sub::Shift {
                target,
                delta,
                min,
                max,
                bounded,
            } => {
                let t = if off < 0 {
                    -1
                } else if off < min || off >= max {
                    return;
                } else {
                    match delta {
                        None => -1,
                        Some(d) if bounded => self.bounded(target, off as i64 + d as i64),
                        Some(d) => off + d,
                    }
                };
                let tc = self.cell(target, t);
                self.add_edge(cell, Edge::Copy(tc));
            }
        }
    }

    /// Whether `obj` may have cells at offsets other than -1: objects of a known size,
    /// memory copies' pseudo-objects, and globals whose initializer stores at an offset.
    fn has_fields(&self, obj: u32) -> bool {
        let obj = self.cx.obj(obj);
        self.prep.layouts.contains_key(&obj)
            || self.copy_objects.contains(&obj)
            || self.initialized_fields.contains(&obj)
    }

    /// The node that every cell of `obj` copies into: what a read of the whole object sees.
    /// Reads at -1 take an edge from it, one per object instead of one per cell.
    fn whole(&mut self, obj: u32) -> Node {
        if let Some(&w) = self.whole.get(&obj) {
            return w;
        }
        let w = self.helper(Helper::Whole(obj));
        self.whole.insert(obj, w);
        self.subscribe(obj, Sub::All(w));
        w
    }

    fn subscribe(&mut self, obj: u32, s: Sub) {
        if self.sub_set.insert((obj, s)) {
            self.add_subscription(obj, s);
        }
    }

    /// A memory copy's subscription for a location of its source (`from`) or destination;
    /// once per (copy, direction, location), which determines the subscription. (A set of
    /// those pairs is a third of the size of one of subscriptions: SQLite in 1-callsite
    /// makes 18 million.)
    fn subscribe_copy(&mut self, copy: u32, from: bool, loc: u32, obj: u32, s: Sub) {
        if self.copy_fired.insert((copy << 1 | from as u32, loc)) {
            self.add_subscription(obj, s);
        }
    }

    fn add_subscription(&mut self, obj: u32, s: Sub) {
        self.subs.entry(obj).or_default().push(s);
        let cells = self.object_cells.get(&obj).cloned().unwrap_or_default();
        for (off, c) in cells {
            self.connect(s, off, c);
        }
    }

    /// Trigger `t` for location `id` of the address it watches.
    fn fire(&mut self, t: Trigger, id: u32) {
        let (o, f) = self.locs[id as usize];
        match t {
            Trigger::Load { to, whole } => {
                // An object with one cell (-1) is read whole by the edge below.
                if (f < 0 || whole) && self.has_fields(o) {
                    let w = self.whole(o);
                    self.add_edge(w, Edge::Copy(to));
                } else {
                    let c = self.loc_cell(id);
                    self.add_edge(c, Edge::Copy(to));
                }
                let c = self.cell(o, -1);
                self.add_edge(c, Edge::Copy(to));
            }
            Trigger::Store { value, whole } => {
                let c = if whole { self.cell(o, -1) } else { self.loc_cell(id) };
                self.add_edge(value, Edge::Copy(c));
            }
            Trigger::SelfStore => {
                let c = self.cell(o, f);
                self.add_loc(c, (o, -1));
            }
            Trigger::VptrStore { value, store } => {
                if !(self.prep.overwritten_vptr).contains(&(store, self.cx.obj(o), f)) {
                    let c = self.cell(o, f);
                    self.add_edge(value, Edge::Copy(c));
                }
            }
            Trigger::Callee { call } => {
                let o = self.cx.obj(o);
                if self.functions.contains(&o)
                    && self.callable(call, o)
                    && self.call_edges.insert((call, o))
                {
                    self.call(call, o);
                }
            }
            Trigger::Callback { call, model } => {
                let o = self.cx.obj(o);
                if self.defined.contains(&o) && self.callbacks.insert((call, model, o)) {
                    self.callback(call, o, model);
                }
            }
            Trigger::CopyFrom { copy } => {
                let MemCopy { length, pseudo, .. } = self.copies[copy as usize];
                // From a collapsed array, only a copy within one element keeps offsets.
                let whole_elements = match self.prep.collapsed(self.cx.obj(o)) {
                    Some(elem) => f >= 0 && length.is_none_or(|n| n > elem - f),
                    None => false,
                };
                let sub = Sub::Shift {
                    target: pseudo,
                    delta: (f >= 0 && !whole_elements).then_some(-f),
                    min: if whole_elements { 0 } else { f.max(0) },
                    max: i32::MAX,
                    bounded: false,
                };
                self.subscribe_copy(copy, true, id, o, sub);
            }
            Trigger::CopyTo { copy } => {
                let MemCopy { length, pseudo, .. } = self.copies[copy as usize];
                // Within the constant length at `f + r`; without one, only a copy to offset 0
                // keeps offsets (one to a higher offset than it reads from could shift the
                // same contents upwards forever).
                let exact = f >= 0 && (length.is_some() || f == 0);
                let sub = Sub::Shift {
                    target: o,
                    delta: exact.then_some(f),
                    min: 0,
                    max: length.unwrap_or(i32::MAX),
                    bounded: true,
                };
                self.subscribe_copy(copy, false, id, pseudo, sub);
            }
        }
    }

    /// A memory copy from `*src` to `*dst` by instruction `instr` in context `ctx`; every
    /// source and destination of one instruction share its copied contents, as in the rules.
    fn memcpy(&mut self, dst: Node, src: Node, instr: u32, ctx: u32) {
        let copy = match self.copy_index.get(&(instr, ctx)) {
            Some(&c) => c,
            None => {
                let c = self.copies.len() as u32;
                // Named after nothing a fact can name.
                let pseudo = self.sym.intern(&format!("\u{0}copy{c}"));
                self.copy_objects.insert(pseudo);
                self.copies.push(MemCopy {
                    instr,
                    length: self.prep.copy_length.get(&instr).copied(),
                    pseudo: self.cx.inst(0, pseudo),
                    nodes: HashSet::default(),
                });
                self.copy_index.insert((instr, ctx), c);
                c
            }
        };
        if self.copies[copy as usize].nodes.insert((src, true)) {
            self.add_trigger(src, Trigger::CopyFrom { copy });
        }
        if self.copies[copy as usize].nodes.insert((dst, false)) {
            self.add_trigger(dst, Trigger::CopyTo { copy });
        }
    }

    /// Whether call `c` may call function `f`: always when it is direct, else when their
    /// types match (`callable_type` in the prep rules).
    fn callable(&self, c: u32, f: u32) -> bool {
        match self.prep.indirect_type.get(&self.call_sym[c as usize]) {
            None => true,
            Some(&t) => self
                .signature
                .get(&f)
                .is_some_and(|u| self.prep.callable.contains(&(t, *u))),
        }
    }

    /// The callee context of a new call-graph edge from call `c` (in its context X) to
    /// function `f`: push(elem, X), or `[]` when `c` is megamorphic; `f` is reached there.
    fn enter(&mut self, c: u32, f: u32) -> u32 {
        if self.cx.depth == 0 {
            return 0;
        }
        let call_sym = self.call_sym[c as usize];
        let y = if self.prep.megamorphic.contains(&call_sym) {
            0
        } else {
            let elem = if self.cx.caller {
                self.call_func[c as usize]
            } else {
                call_sym
            };
            self.cx.push(elem, self.call_ctx[c as usize])
        };
        self.cx.edges.push((c, y, f));
        if self.defined.contains(&f) {
            self.cx.reach(f, y);
        }
        y
    }

    /// Arguments to the parameters of the same index, in callee context `y`.
    fn bind(&mut self, args: &[(i32, Node)], params: Option<Vec<(i32, u32)>>, y: u32) {
        for &(k, a) in args {
            for &(pk, p) in params.iter().flatten() {
                if pk == k {
                    let p = self.node(p, y);
                    self.add_edge(a, Edge::Copy(p));
                }
            }
        }
    }

    /// A new call-graph edge from call `c` to function `f`.
    fn call(&mut self, c: u32, f: u32) {
        let call_sym = self.call_sym[c as usize];
        let x = self.call_ctx[c as usize];
        let y = self.enter(c, f);
        let args = self.call_args[c as usize].clone();
        let result = self.call_result[c as usize];
        self.bind(&args, self.params.get(&f).cloned(), y);
        let int_args = self.call_int_args[c as usize].clone();
        self.bind(&int_args, self.int_params.get(&f).cloned(), y);
        if let Some(r) = self.call_int_result[c as usize] {
            for v in self.int_returns.get(&f).cloned().unwrap_or_default() {
                let v = self.node(v, y);
                self.add_edge(v, Edge::Copy(r));
            }
        }
        let wrapper = self.prep.wrapper.contains(&f);
        if let (Some(r), false) = (result, wrapper) {
            for v in self.returns.get(&f).cloned().unwrap_or_default() {
                let v = self.node(v, y);
                self.add_edge(v, Edge::Copy(r));
            }
        }
        let outs = self.prep.out_wrapper.get(&f).cloned();
        if (wrapper && result.is_some()) || outs.is_some() {
            let heap = self.cx.inst(x, call_sym);
            // Sized (direct calls of one-size wrappers, or typed by the caller's use):
            // field-sensitive at the offsets the wrapper returns or stores; else one
            // location at -1.
            let sized = self.prep.layouts.contains_key(&call_sym);
            let loc = |s: &Self, off: i32| {
                if sized && off >= 0 {
                    (heap, s.bounded(heap, off as i64))
                } else {
                    (heap, -1)
                }
            };
            if let (Some(r), true) = (result, wrapper) {
                for off in self.prep.wrapper_offsets.get(&f).cloned().unwrap_or_default() {
                    let l = loc(self, off);
                    self.add_loc(r, l);
                }
            }
            for (k, offsets) in outs.unwrap_or_default() {
                if self.prep.out_chain_args.contains(&(call_sym, k)) {
                    continue;
                }
                let fresh = self.helper(Helper::StoredFresh(heap));
                for off in offsets {
                    let l = loc(self, off);
                    self.add_loc(fresh, l);
                }
                for &(_, a) in args.iter().filter(|&&(i, _)| i == k) {
                    let store = Trigger::Store {
                        value: fresh,
                        whole: false,
                    };
                    self.add_trigger(a, store);
                }
            }
            // The inner objects' offsets are the wrapper's own only when they have its
            // one constant size; a collapsed (typed) call object takes them at -1.
            let collapsed = self.prep.collapsed(call_sym).is_some();
            let delta = if sized && !collapsed { Some(0) } else { None };
            for inner in self.prep.wrapper_inner.get(&f).cloned().unwrap_or_default() {
                let inner = self.cx.inst(y, inner);
                self.subscribe(
                    inner,
                    Sub::Shift {
                        target: heap,
                        delta,
                        min: 0,
                        max: i32::MAX,
                        bounded: false,
                    },
                );
            }
        }
        if let Some(&nf) = self.prep.variadic.get(&f) {
            let varargs = self.cx.inst(y, f);
            for &(k, a) in &args {
                if k >= nf {
                    let c = self.cell(varargs, -1);
                    self.add_edge(a, Edge::Copy(c));
                }
            }
        }
        let Some(&name) = self.prep.external.get(&f) else {
            return;
        };
        self.external_call(c, f, name, &args, result);
    }

    fn external_call(
        &mut self,
        c: u32,
        f: u32,
        name: u32,
        args: &[(i32, Node)],
        result: Option<Node>,
    ) {
        let call_sym = self.call_sym[c as usize];
        let ctx = self.call_ctx[c as usize];
        // The heap object of the call in its context.
        let heap = self.cx.inst(ctx, call_sym);
        let arg = |k: i32| args.iter().filter(move |(i, _)| *i == k).map(|(_, n)| *n);
        let operand = |k: i32| -> Vec<Node> {
            if k == -1 {
                result.into_iter().collect()
            } else {
                arg(k).collect()
            }
        };
        if let Some(r) = result {
            if self.prep.alloc.contains(&name) {
                let off = self.bounded(heap, 0);
                self.add_loc(r, (heap, off));
            }
            for k in self.prep.return_arg.get(&name).cloned().unwrap_or_default() {
                for a in arg(k) {
                    self.add_edge(a, Edge::Copy(r));
                }
            }
            for k in self
                .prep
                .return_into_arg
                .get(&name)
                .cloned()
                .unwrap_or_default()
            {
                for a in arg(k) {
                    self.add_edge(a, Edge::Unknown(r));
                }
            }
            if self.prep.return_into_arg_any_call.contains_key(&name) {
                let any = self.any_call_node(name);
                self.add_edge(any, Edge::Copy(r));
            }
            for k in self
                .prep
                .return_load_arg
                .get(&name)
                .cloned()
                .unwrap_or_default()
            {
                for a in arg(k) {
                    let loaded = self.helper(Helper::ArgumentMemory(name));
                    self.add_trigger(
                        a,
                        Trigger::Load {
                            to: loaded,
                            whole: true,
                        },
                    );
                    self.add_edge(loaded, Edge::Unknown(r));
                }
            }
            let external = match self.prep.static_storage.get(&name) {
                Some(&storage) => Some(storage),
                None => self.prep.unmodelled.contains(&f).then_some(f),
            };
            if let Some(o) = external {
                let o = self.external_object(o);
                self.add_loc(r, (o, -1));
            }
            if self.prep.unmodelled.contains(&f) {
                for &(_, a) in args {
                    self.add_edge(a, Edge::Unknown(r));
                }
            }
        }
        for k in self
            .prep
            .return_into_arg_any_call
            .get(&name)
            .cloned()
            .unwrap_or_default()
        {
            let any = self.any_call_node(name);
            for a in arg(k) {
                self.add_edge(a, Edge::Unknown(any));
            }
        }
        // Stored where the argument points (`out_alloc`), or somewhere into its struct.
        let out_alloc = self.prep.out_alloc.get(&name).cloned().unwrap_or_default();
        let out_alloc_in = self.prep.out_alloc_in.get(&name).cloned().unwrap_or_default();
        let stores = out_alloc.iter().map(|&k| (k, false));
        for (k, whole) in stores.chain(out_alloc_in.iter().map(|&k| (k, true))) {
            for a in arg(k) {
                let fresh = self.helper(Helper::StoredFresh(heap));
                self.add_loc(fresh, (heap, -1));
                self.add_trigger(a, Trigger::Store { value: fresh, whole });
            }
        }
        let allocates = (result.is_some() && self.prep.alloc.contains(&name))
            || !out_alloc.is_empty()
            || !out_alloc_in.is_empty();
        if allocates && self.prep.alloc_linked.contains(&name) {
            let cell = self.cell(heap, -1);
            self.add_loc(cell, (heap, -1));
        }
        for (k, s) in self
            .prep
            .out_into_arg
            .get(&name)
            .cloned()
            .unwrap_or_default()
        {
            for a in arg(k) {
                for b in arg(s) {
                    let anywhere = self.helper(Helper::IntoArgument(name));
                    self.add_edge(b, Edge::Unknown(anywhere));
                    self.add_trigger(
                        a,
                        Trigger::Store {
                            value: anywhere,
                            whole: false,
                        },
                    );
                }
            }
        }
        for k in self.prep.out_self.get(&name).cloned().unwrap_or_default() {
            for a in arg(k) {
                self.add_trigger(a, Trigger::SelfStore);
            }
        }
        for (dk, sk) in self
            .prep
            .copy_contents
            .get(&name)
            .cloned()
            .unwrap_or_default()
        {
            for d in operand(dk) {
                for s in operand(sk) {
                    self.memcpy(d, s, call_sym, ctx);
                }
            }
        }
        for (dk, sk) in self
            .prep
            .scatter_contents
            .get(&name)
            .cloned()
            .unwrap_or_default()
        {
            // Every offset of the source's objects, read into one node, stored at -1.
            let contents = self.new_node(None);
            for s in arg(sk) {
                let load = Trigger::Load {
                    to: contents,
                    whole: true,
                };
                self.add_trigger(s, load);
            }
            for d in arg(dk) {
                let store = Trigger::Store {
                    value: contents,
                    whole: true,
                };
                self.add_trigger(d, store);
            }
        }
        if let Some(offsets) = self.prep.links.get(&name).cloned() {
            // One node for the call's set of locations: the arguments flow in, each link
            // field (a constant offset from the set) is loaded into it and stored from it.
            let set = self.helper(Helper::Links(name));
            for &(_, a) in args {
                self.add_edge(a, Edge::Copy(set));
            }
            for k in offsets {
                let field = self.new_node(None);
                self.add_edge(set, Edge::Field(field, k));
                self.add_trigger(
                    field,
                    Trigger::Load {
                        to: set,
                        whole: false,
                    },
                );
                self.add_trigger(
                    field,
                    Trigger::Store {
                        value: set,
                        whole: false,
                    },
                );
            }
            if let Some(r) = result {
                self.add_edge(set, Edge::Copy(r));
            }
        }
        for k in self.prep.throw.get(&name).cloned().unwrap_or_default() {
            for a in arg(k) {
                let thrown = self.thrown;
                self.add_edge(a, Edge::Copy(thrown));
            }
        }
        for model in self.prep.callbacks_of.get(&name).cloned().unwrap_or_default() {
            let Callback { func, levels, .. } = self.prep.callbacks[model as usize];
            for a in arg(func) {
                let mut callees = a;
                for _ in 0..levels {
                    callees = self.contents_of(callees, name);
                }
                self.add_trigger(callees, Trigger::Callback { call: c, model });
            }
        }
        for (key, f) in self.prep.defined_callbacks.get(&name).cloned().unwrap_or_default() {
            for model in self.keyed_callbacks(name, key) {
                if self.callbacks.insert((c, model, f)) {
                    self.callback(c, f, model);
                }
            }
        }
        for (key, g) in self.prep.global_callbacks.get(&name).cloned().unwrap_or_default() {
            let global = self.helper(Helper::ArgumentMemory(name));
            let g = self.cx.inst(0, g);
            self.add_loc(global, (g, -1));
            let callees = self.contents_of(global, name);
            for model in self.keyed_callbacks(name, key) {
                self.add_trigger(callees, Trigger::Callback { call: c, model });
            }
        }
        for o in self.prep.kept_storage.get(&name).cloned().unwrap_or_default() {
            self.storage(o);
        }
        for (k, o) in self.prep.keep.get(&name).cloned().unwrap_or_default() {
            let kept = self.kept(o);
            for a in arg(k) {
                self.add_edge(a, Edge::Copy(kept));
            }
        }
        for (k, o) in self.prep.keep_contents.get(&name).cloned().unwrap_or_default() {
            let kept = self.kept(o);
            for a in arg(k) {
                self.add_trigger(a, Trigger::Load { to: kept, whole: true });
            }
        }
        for (k, o) in self.prep.out_kept.get(&name).cloned().unwrap_or_default() {
            let kept = self.kept(o);
            for a in arg(k) {
                self.add_trigger(a, Trigger::Store { value: kept, whole: false });
            }
        }
        if let Some(r) = result {
            for o in self.prep.return_kept.get(&name).cloned().unwrap_or_default() {
                let kept = self.kept(o);
                self.add_edge(kept, Edge::Copy(r));
            }
        }
    }

    /// The callback models of external `name` whose key is `key` (no argument's index).
    fn keyed_callbacks(&self, name: u32, key: i32) -> Vec<u32> {
        let models = self.prep.callbacks_of.get(&name).into_iter().flatten();
        let keyed = models.filter(|&&m| {
            let m = &self.prep.callbacks[m as usize];
            m.func == key && m.levels == 0
        });
        keyed.copied().collect()
    }

    /// A node of what the memory node `a` points to holds (for a model of `name`).
    fn contents_of(&mut self, a: Node, name: u32) -> Node {
        let loaded = self.helper(Helper::ArgumentMemory(name));
        let load = Trigger::Load {
            to: loaded,
            whole: true,
        };
        self.add_trigger(a, load);
        loaded
    }

    /// The instance of library object `o` (an `external` object, which may point into
    /// itself at -1).
    fn external_object(&mut self, o: u32) -> u32 {
        let o = self.cx.inst(0, o);
        if self.external_objects.insert(o) {
            let cell = self.cell(o, -1);
            self.add_loc(cell, (o, -1));
        }
        o
    }

    /// The instance of the object of library storage `o`. A storage that a function
    /// returns (its nodes link to each other) points into itself; one that only keeps the
    /// program's pointers does not.
    fn storage(&mut self, o: u32) -> u32 {
        if self.prep.returned_storage.contains(&o) {
            return self.external_object(o);
        }
        let o = self.cx.inst(0, o);
        self.storage_objects.insert(o);
        o
    }

    /// The node of what library storage `o` (its object) keeps: its one cell.
    fn kept(&mut self, o: u32) -> Node {
        let o = self.storage(o);
        self.cell(o, -1)
    }

    /// External call `c` calls back defined function `f` (`Prep::callbacks[model]`).
    fn callback(&mut self, c: u32, f: u32, model: u32) {
        let y = self.enter(c, f);
        let params = self.params.get(&f).cloned().unwrap_or_default();
        let args = self.call_args[c as usize].clone();
        let model = &self.prep.callbacks[model as usize];
        let (name, wanted, returns_kept) =
            (model.name, model.params.clone(), model.returns_kept.clone());
        for Param { param, source } in wanted {
            let (sources, edge): (Vec<Node>, fn(Node) -> Edge) = match source {
                ParamSource::Arg(i) => (Self::args_at(&args, i), Edge::Copy),
                ParamSource::Into(i) => (Self::args_at(&args, i), Edge::Unknown),
                ParamSource::Contents(i) | ParamSource::IntoContents(i) => {
                    let args = Self::args_at(&args, i);
                    let loaded = args.into_iter().map(|a| self.contents_of(a, name));
                    let into = matches!(source, ParamSource::IntoContents(_));
                    (loaded.collect(), if into { Edge::Unknown } else { Edge::Copy })
                }
                ParamSource::Kept(o) => (vec![self.kept(o)], Edge::Copy),
                ParamSource::Storage(o) => {
                    let o = self.storage(o);
                    for &(_, p) in params.iter().filter(|&&(k, _)| k == param) {
                        let p = self.node(p, y);
                        self.add_loc(p, (o, -1));
                    }
                    continue;
                }
            };
            for &(_, p) in params.iter().filter(|&&(k, _)| k == param) {
                let p = self.node(p, y);
                for &a in &sources {
                    self.add_edge(a, edge(p));
                }
            }
        }
        for o in returns_kept {
            let kept = self.kept(o);
            for v in self.returns.get(&f).cloned().unwrap_or_default() {
                let v = self.node(v, y);
                self.add_edge(v, Edge::Copy(kept));
            }
        }
    }

    fn args_at(args: &[(i32, Node)], index: i32) -> Vec<Node> {
        args.iter().filter(|&&(k, _)| k == index).map(|&(_, a)| a).collect()
    }

    /// The constraints of function `f` in context `ctx` (depth > 0).
    fn instantiate(&mut self, f: u32, ctx: u32) {
        let cons = self.cx.groups.get(&f).cloned().unwrap_or_default();
        let mut callees = Vec::new();
        for con in cons {
            if let Some(callee) = self.apply(con, ctx, f) {
                callees.push(callee);
            }
        }
        for (i, n) in callees {
            self.add_trigger(n, Trigger::Callee { call: i });
        }
    }

    /// The call `instr` in context `ctx` (held by function `func`).
    fn call_id(&mut self, instr: u32, ctx: u32, func: u32) -> u32 {
        let next = self.call_sym.len() as u32;
        let id = *self.call_index.entry((instr, ctx)).or_insert(next);
        if id == next {
            self.call_sym.push(instr);
            self.call_ctx.push(ctx);
            self.call_func.push(func);
            self.call_args.push(Vec::new());
            self.call_result.push(None);
            self.call_int_args.push(Vec::new());
            self.call_int_result.push(None);
        }
        id
    }

    /// Adds constraint `con` in context `ctx` of function `func` (any for global-level
    /// ones). A callee operand is returned rather than triggered: calls are triggered once
    /// their operands are in place.
    fn apply(&mut self, con: Con, ctx: u32, func: u32) -> Option<(u32, Node)> {
        match con {
            Con::AddressOf { node, obj } => {
                let n = self.node(node, ctx);
                for t in self.prep.linked.get(&obj).cloned().unwrap_or_default() {
                    let hctx = if self.cx.stack_objects.contains(&t) {
                        ctx
                    } else {
                        0
                    };
                    let t = self.cx.inst(hctx, t);
                    let off = self.bounded(t, 0);
                    self.add_loc(n, (t, off));
                }
            }
            Con::Copy { to, from } => {
                // A copy from a node of an initializer or alias (global-level, in the
                // empty context only) into a function reaches each of its instances.
                let from_ctx = match self.cx.owner.contains_key(&from) {
                    true => ctx,
                    false => 0,
                };
                let (t, f) = (self.node(to, ctx), self.node(from, from_ctx));
                self.add_edge(f, Edge::Copy(t));
            }
            Con::Field { to, base, offset } => {
                let (t, b) = (self.node(to, ctx), self.node(base, ctx));
                let e = if self.prep.looping.contains(&to) {
                    Edge::Loop(t, offset)
                } else if self.prep.inbounds.contains(&to) {
                    Edge::Inbounds(t, offset)
                } else {
                    Edge::Field(t, offset)
                };
                self.add_edge(b, e);
            }
            Con::Unknown { to, base } => {
                let (t, b) = (self.node(to, ctx), self.node(base, ctx));
                self.add_edge(b, Edge::Unknown(t));
            }
            Con::Stride {
                to,
                base,
                offset,
                stride,
            } => {
                let (t, b) = (self.node(to, ctx), self.node(base, ctx));
                let i = match self.stride_ids.get(&(offset, stride)) {
                    Some(&i) => i,
                    None => {
                        let i = self.strides.len() as u32;
                        self.strides.push((offset, stride));
                        self.stride_ids.insert((offset, stride), i);
                        i
                    }
                };
                self.add_edge(b, Edge::Stride(t, i));
            }
            Con::Load { to, addr } => {
                let whole = self.aggregate.contains(&to);
                let (t, a) = (self.node(to, ctx), self.node(addr, ctx));
                self.add_trigger(a, Trigger::Load { to: t, whole });
            }
            Con::Store { instr, addr, value } => {
                if self.prep.out_wrapper_stores.contains(&instr) {
                    return None;
                }
                let whole = self.aggregate.contains(&value);
                let (a, v) = (self.node(addr, ctx), self.node(value, ctx));
                if !whole && self.prep.vptr_stores.contains(&instr) {
                    self.add_trigger(a, Trigger::VptrStore { value: v, store: instr });
                } else {
                    self.add_trigger(a, Trigger::Store { value: v, whole });
                }
            }
            Con::Initializer {
                global,
                offset,
                node,
            } => {
                let off = match self.prep.collapsed(global) {
                    _ if self.aggregate.contains(&node) => -1,
                    Some(elem) => offset % elem,
                    None => offset,
                };
                if off >= 0 {
                    self.initialized_fields.insert(global);
                }
                let n = self.node(node, ctx);
                let g = self.cx.inst(0, global);
                let c = self.cell(g, off);
                self.add_edge(n, Edge::Copy(c));
            }
            Con::Memcpy { instr, dst, src } => {
                let (d, src) = (self.node(dst, ctx), self.node(src, ctx));
                self.memcpy(d, src, instr, ctx);
            }
            Con::PtrToInt { node } => {
                let n = self.node(node, ctx);
                let ie = self.int_escaped;
                self.add_edge(n, Edge::Unknown(ie));
            }
            Con::IntToPtr { node } => {
                let n = self.node(node, ctx);
                let ie = self.int_escaped;
                self.add_edge(ie, Edge::Copy(n));
            }
            Con::VaStart { list, func } => {
                let l = self.node(list, ctx);
                let varargs = self.cx.inst(ctx, func);
                let va = self.helper(Helper::Varargs(varargs));
                self.add_loc(va, (varargs, -1));
                self.add_trigger(
                    l,
                    Trigger::Store {
                        value: va,
                        whole: true,
                    },
                );
            }
            Con::VaArg { to, list } => {
                let (t, l) = (self.node(to, ctx), self.node(list, ctx));
                let list = self.helper(Helper::VaList);
                self.add_trigger(
                    l,
                    Trigger::Load {
                        to: list,
                        whole: true,
                    },
                );
                self.add_trigger(list, Trigger::Load { to: t, whole: true });
            }
            Con::Exception { to } => {
                let t = self.node(to, ctx);
                let thrown = self.thrown;
                self.add_edge(thrown, Edge::Copy(t));
            }
            Con::Call { instr, callee } => {
                let i = self.call_id(instr, ctx, func);
                let n = self.node(callee, ctx);
                return Some((i, n));
            }
            Con::CallArg { instr, index, node } => {
                let i = self.call_id(instr, ctx, func);
                let a = self.node(node, ctx);
                self.call_args[i as usize].push((index, a));
            }
            Con::CallResult { instr, node } => {
                let i = self.call_id(instr, ctx, func);
                let n = self.node(node, ctx);
                self.call_result[i as usize] = Some(n);
            }
            Con::IntCallArg { instr, index, node } => {
                let i = self.call_id(instr, ctx, func);
                let a = self.node(node, ctx);
                self.call_int_args[i as usize].push((index, a));
            }
            Con::IntCallResult { instr, node } => {
                let i = self.call_id(instr, ctx, func);
                let n = self.node(node, ctx);
                self.call_int_result[i as usize] = Some(n);
            }
        }
        None
    }

    fn any_call_node(&mut self, name: u32) -> Node {
        if let Some(&n) = self.any_call_arg.get(&name) {
            return n;
        }
        let n = self.helper(Helper::AnyCallArgument(name));
        self.any_call_arg.insert(name, n);
        n
    }

    /// Processes the worklist in waves, each in topological order: a node then passes on
    /// what all its predecessors gave it in one step, instead of once per predecessor.
    fn run(&mut self) {
        let mut next_search = 64;
        while !self.worklist.is_empty() || !self.cx.pending.is_empty() {
            // Function instances reached since the last wave.
            while let Some((f, ctx)) = self.cx.pending.pop() {
                self.instantiate(f, ctx);
            }
            let mut wave = std::mem::take(&mut self.worklist);
            wave.sort_unstable_by_key(|&n| std::cmp::Reverse(self.rank[n as usize]));
            for n in wave {
                if self.new_copy_edges >= next_search && self.provenance.is_none() {
                    self.collapse_cycles();
                    next_search = (self.new_copy_edges * 2).clamp(64, CYCLE_SEARCH_EVERY);
                    self.new_copy_edges = 0;
                }
                self.process(n);
                if locset::allocated_bytes() - self.shared_at > SHARE_SETS_AFTER {
                    self.share_sets();
                }
            }
        }
        self.share_sets();
    }

    fn process(&mut self, n: Node) {
        self.queued[n as usize] = false;
        if self.find(n) != n {
            return;
        }
        let delta = std::mem::take(&mut self.delta[n as usize]);
        if delta.is_empty() {
            return;
        }
        let mut i = 0;
        let before = self.propagating_from(Some(n));
        let mut split = None;
        while i < self.edges[n as usize].len() {
            let e = self.edges[n as usize][i];
            self.propagate(e, &delta, &mut split);
            i += 1;
        }
        self.propagating_from(before);
        let mut i = 0;
        while i < self.triggers[n as usize].len() {
            let t = self.triggers[n as usize][i];
            for id in &delta {
                self.fire(t, id);
            }
            i += 1;
        }
    }

    /// Merges every cycle of copy edges into one node (Tarjan's SCC algorithm, iterative):
    /// nodes on such a cycle have equal points-to sets at the fixpoint.
    fn collapse_cycles(&mut self) {
        let n = self.pts.len();
        let (mut index, mut low) = (vec![u32::MAX; n], vec![0u32; n]);
        let mut on_stack = vec![false; n];
        let (mut stack, mut next) = (Vec::new(), 0u32);
        let mut finished = 0u32;
        let mut merges: Vec<Vec<Node>> = Vec::new();
        for root in 0..n as Node {
            if index[root as usize] != u32::MAX || self.find(root) != root {
                continue;
            }
            // (node, next edge position)
            let mut call: Vec<(Node, usize)> = vec![(root, 0)];
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut pos)) = call.last_mut() {
                let mut descended = false;
                while *pos < self.edges[v as usize].len() {
                    let e = self.edges[v as usize][*pos];
                    *pos += 1;
                    let Edge::Copy(w) = e else { continue };
                    let w = self.find(w);
                    // What a data node holds is filtered: it is in no cycle.
                    if self.data_node[w as usize] {
                        continue;
                    }
                    if index[w as usize] == u32::MAX {
                        index[w as usize] = next;
                        low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        call.push((w, 0));
                        descended = true;
                        break;
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                }
                if descended {
                    continue;
                }
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    // Tarjan finishes components sinks first.
                    finished += 1;
                    let mut scc = Vec::new();
                    loop {
                        let w = stack.pop().expect("on the stack");
                        on_stack[w as usize] = false;
                        self.rank[w as usize] = finished;
                        scc.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if scc.len() > 1 {
                        merges.push(scc);
                    }
                }
            }
        }
        for scc in merges {
            self.merge(&scc);
        }
        let live: usize = (self.edges.iter().map(Vec::len))
            .filter(|&n| n > SCANNED_EDGES)
            .sum();
        if self.edge_set.len() > 2 * live {
            self.rebuild_edge_set();
        }
    }

    /// Keeps each list's edges once, and one entry per edge of the long lists in the edge
    /// set, under the representatives of its ends. A merge moves a node's edges to its
    /// representative under new keys, and the old ones stay: Lua in 2-callsite ended with
    /// 15.8 million entries for 2.1 million edges.
    fn rebuild_edge_set(&mut self) {
        self.edge_set = HashSet::default();
        let mut seen = HashSet::default();
        for n in 0..self.edges.len() as Node {
            let mut edges = std::mem::take(&mut self.edges[n as usize]);
            seen.clear();
            edges.retain_mut(|e| {
                *e = match *e {
                    Edge::Copy(t) => Edge::Copy(self.find(t)),
                    Edge::Field(t, k) => Edge::Field(self.find(t), k),
                    Edge::Inbounds(t, k) => Edge::Inbounds(self.find(t), k),
                    Edge::Unknown(t) => Edge::Unknown(self.find(t)),
                    Edge::Loop(t, k) => Edge::Loop(self.find(t), k),
                    Edge::Stride(t, k) => Edge::Stride(self.find(t), k),
                };
                *e != Edge::Copy(n) && seen.insert(*e)
            });
            if edges.len() > SCANNED_EDGES {
                self.edge_set.extend(edges.iter().map(|&e| (n, e)));
            }
            self.edges[n as usize] = edges;
        }
    }

    fn merge(&mut self, nodes: &[Node]) {
        let r = nodes[0];
        for &m in &nodes[1..] {
            self.rep[m as usize] = r;
            let pts = std::mem::take(&mut self.pts[m as usize]);
            let edges = std::mem::take(&mut self.edges[m as usize]);
            let triggers = std::mem::take(&mut self.triggers[m as usize]);
            self.delta[m as usize] = LocSet::default();
            self.add_locs(r, &pts);
            for e in edges {
                self.add_edge(r, e);
            }
            for t in triggers {
                self.add_trigger(r, t);
            }
        }
    }
}

/// `--explain`: where the locations of the object asked about came from.
impl Solver {
    /// Sets the node being propagated from (while explaining); returns the previous one.
    fn propagating_from(&mut self, source: Option<Node>) -> Option<Node> {
        match &mut self.provenance {
            Some(p) => std::mem::replace(&mut p.source, source),
            None => None,
        }
    }

    /// The chain from `ask.pointer` back to where `ask.object` enters, one line per node,
    /// the pointer first (`--explain`).
    fn explain(&self, ask: &Explain) -> Result<Vec<String>> {
        let p = self.provenance.as_ref().expect("explaining");
        let Some(pointer) = self.sym.get(&ask.pointer) else {
            bail!("--explain: no pointer `{}` in the facts", ask.pointer);
        };
        if !p.seen() {
            bail!("--explain: nothing points to `{}`", ask.object);
        }
        // Every instance of the pointer that holds the object; the first one is explained.
        let mut instances: Vec<(u32, Node)> = (self.named.iter())
            .filter(|&(&(sym, _), &n)| sym == pointer && p.holds(n))
            .map(|(&(_, ctx), &n)| (ctx, n))
            .collect();
        instances.sort_unstable();
        let Some(&(_, start)) = instances.first() else {
            bail!("--explain: `{}` does not point to `{}`", ask.pointer, ask.object);
        };
        let cells: HashMap<Node, Loc> = self.cells.iter().map(|(&l, &n)| (n, l)).collect();
        let access: HashMap<Node, (Node, bool)> = (self.access.iter())
            .map(|(&(addr, _, load), &n)| (n, (addr, load)))
            .collect();
        let mut lines = vec![format!(
            "`{}` may point to `{}`; each line holds it because the next one does:",
            ask.pointer, ask.object
        )];
        for n in p.chain(start) {
            lines.push(format!("  {}", self.describe(n, &cells, &access)));
        }
        if let Some(last) = lines.last_mut() {
            last.push_str(" (by a constraint that names the object)");
        }
        Ok(lines)
    }

    fn describe(
        &self,
        n: Node,
        cells: &HashMap<Node, Loc>,
        access: &HashMap<Node, (Node, bool)>,
    ) -> String {
        let sym = &self.sym;
        let context = |ctx: u32| match ctx {
            0 => String::new(),
            c => format!(" in context {}", self.cx.spell(c, sym)),
        };
        if let Some(name) = self.node_name[n as usize] {
            return format!("{}{}", sym.resolve(name), context(self.node_ctx[n as usize]));
        }
        if let Some(&(obj, off)) = cells.get(&n) {
            let base = self.cx.obj(obj);
            let heap_context = match self.cx.depth {
                0 => String::new(),
                _ => context(self.cx.insts[obj as usize].0),
            };
            let what = match self.copies.iter().find(|c| self.cx.obj(c.pseudo) == base) {
                Some(c) => format!("what {} copies", sym.resolve(c.instr)),
                None => format!("memory of {}{heap_context}", sym.resolve(base)),
            };
            let at = match off {
                -1 => "at an unknown offset".to_string(),
                o => format!("at offset {o}"),
            };
            return format!("{what} {at}");
        }
        if let Some(&(addr, load)) = access.get(&n) {
            let verb = if load { "loads through" } else { "stores through" };
            return format!("what {verb} {}", self.describe(addr, cells, access));
        }
        if n == self.int_escaped {
            return "every object whose address became an integer (inttoptr)".to_string();
        }
        if n == self.thrown {
            return "what may be thrown".to_string();
        }
        let object = |o: u32| {
            let heap_context = match self.cx.depth {
                0 => String::new(),
                _ => context(self.cx.insts[o as usize].0),
            };
            format!("{}{heap_context}", sym.resolve(self.cx.obj(o)))
        };
        match self.helpers.get(&n) {
            Some(&Helper::Whole(o)) => format!("memory of {} at any offset", object(o)),
            Some(&Helper::StoredFresh(o)) => {
                format!("{}, stored through the call's argument", object(o))
            }
            Some(&Helper::ArgumentMemory(f)) => {
                format!("what the memory of an argument of {} holds", sym.resolve(f))
            }
            Some(&Helper::IntoArgument(f)) => {
                format!("somewhere in an argument of {}", sym.resolve(f))
            }
            Some(&Helper::Links(f)) => format!("the nodes {} links", sym.resolve(f)),
            Some(&Helper::AnyCallArgument(f)) => {
                format!("what any call of {} receives", sym.resolve(f))
            }
            Some(&Helper::Varargs(o)) => format!("the variadic arguments of {}", object(o)),
            Some(Helper::VaList) => "what a va_list refers to".to_string(),
            None => format!("a helper node of the solver (#{n})"),
        }
    }
}

/// Solves the points-to fixpoint over `facts` and the prep program's `prep` outputs, and
/// returns the rows of every output of `rules/andersen.dl`; with `explain`, also why the
/// pointer may point to the object (`Solution::explanation`).
pub fn solve(
    facts: &FactSet,
    mut prep: Tables,
    context: Context,
    explain: Option<&Explain>,
) -> Result<Builder> {
    // The rule engine's table, which already holds the prep's symbols and most of the
    // facts' the solver reads: one table from the engine to the written solution.
    let mut sym = prep.take_symbols();
    let p = load_prep(&mut sym, &prep)?;
    let mut s = Solver {
        sym,
        prep: p,
        cx: Contexts::new(context),
        defined: HashSet::default(),
        functions: HashSet::default(),
        signature: HashMap::default(),
        aggregate: HashSet::default(),
        named: HashMap::default(),
        node_name: Vec::new(),
        node_ctx: Vec::new(),
        data_node: Vec::new(),
        cells: HashMap::default(),
        object_cells: HashMap::default(),
        subs: HashMap::default(),
        sub_set: HashSet::default(),
        copy_fired: HashSet::default(),
        locs: Vec::new(),
        loc_layout: Vec::new(),
        loc_bound: Vec::new(),
        loc_ids: HashMap::default(),
        loc_cell: Vec::new(),
        shifted: HashMap::default(),
        unknown_locs: LocSet::default(),
        code_locs: LocSet::default(),
        pts: Vec::new(),
        pool: SetPool::default(),
        changed: Vec::new(),
        shared_at: locset::allocated_bytes(),
        is_changed: Vec::new(),
        delta: Vec::new(),
        edges: Vec::new(),
        edge_set: HashSet::default(),
        strides: Vec::new(),
        stride_ids: HashMap::default(),
        triggers: Vec::new(),
        worklist: Vec::new(),
        queued: Vec::new(),
        rank: Vec::new(),
        rep: Vec::new(),
        new_copy_edges: 0,
        call_index: HashMap::default(),
        call_sym: Vec::new(),
        call_ctx: Vec::new(),
        call_func: Vec::new(),
        call_args: Vec::new(),
        call_result: Vec::new(),
        call_int_args: Vec::new(),
        call_int_result: Vec::new(),
        params: HashMap::default(),
        returns: HashMap::default(),
        int_params: HashMap::default(),
        int_returns: HashMap::default(),
        call_edges: HashSet::default(),
        callbacks: HashSet::default(),
        any_call_arg: HashMap::default(),
        thrown: 0,
        int_escaped: 0,
        external_objects: HashSet::default(),
        storage_objects: HashSet::default(),
        access: HashMap::default(),
        initialized_fields: HashSet::default(),
        copies: Vec::new(),
        copy_index: HashMap::default(),
        copy_objects: HashSet::default(),
        provenance: None,
        whole: HashMap::default(),
        helpers: HashMap::default(),
    };
    if let Some(ask) = explain {
        let object = s.sym.intern(&ask.object);
        s.provenance = Some(Provenance::new(object));
    }
    s.thrown = s.new_node(None);
    s.int_escaped = s.new_node(None);
    load_facts(&mut s, facts)?;
    s.run();
    let explanation = match explain {
        Some(ask) => s.explain(ask)?,
        None => Vec::new(),
    };
    let mut out = outputs(s, facts)?;
    out.explanation = explanation;
    Ok(out)
}

impl Prep {
    /// The element size of a collapsed object.
    fn collapsed(&self, obj: u32) -> Option<i32> {
        self.layouts.get(&obj).and_then(Layout::element)
    }
}

fn load_prep(sym: &mut Symbols, prep: &Tables) -> Result<Prep> {
    let mut p = Prep {
        linked: HashMap::default(),
        looping: HashSet::default(),
        inbounds: HashSet::default(),
        poison_bound: HashMap::default(),
        data_nodes: HashSet::default(),
        flow_slot_loads: HashSet::default(),
        slot_values: Vec::new(),
        code: HashSet::default(),
        wrapper: HashSet::default(),
        layouts: HashMap::default(),
        wrapper_offsets: HashMap::default(),
        copy_length: HashMap::default(),
        wrapper_inner: HashMap::default(),
        out_wrapper: HashMap::default(),
        out_wrapper_stores: HashSet::default(),
        out_chain_args: HashSet::default(),
        overwritten_vptr: HashSet::default(),
        vptr_stores: HashSet::default(),
        external: HashMap::default(),
        unmodelled: HashSet::default(),
        variadic: HashMap::default(),
        external_globals: Vec::new(),
        indirect_type: HashMap::default(),
        callable: HashSet::default(),
        megamorphic: HashSet::default(),
        max_offset: 0,
        roots: Vec::new(),
        context_entries: Vec::new(),
        alloc: HashSet::default(),
        out_alloc: HashMap::default(),
        out_alloc_in: HashMap::default(),
        alloc_linked: HashSet::default(),
        return_arg: HashMap::default(),
        return_into_arg: HashMap::default(),
        return_into_arg_any_call: HashMap::default(),
        return_load_arg: HashMap::default(),
        static_storage: HashMap::default(),
        returned_storage: HashSet::default(),
        copy_contents: HashMap::default(),
        scatter_contents: HashMap::default(),
        out_into_arg: HashMap::default(),
        out_self: HashMap::default(),
        links: HashMap::default(),
        throw: HashMap::default(),
        callbacks: Vec::new(),
        callbacks_of: HashMap::default(),
        kept_storage: HashMap::default(),
        defined_callbacks: HashMap::default(),
        global_callbacks: HashMap::default(),
        keep: HashMap::default(),
        keep_contents: HashMap::default(),
        out_kept: HashMap::default(),
        return_kept: HashMap::default(),
    };
    for r in prep.rows::<prep_rows::linked_object>()? {
        let r = r?;
        p.linked
            .entry(sym.intern(r.obj))
            .or_default()
            .push(sym.intern(r.target));
    }
    for r in prep.rows::<prep_rows::inbounds_field>()? {
        p.inbounds.insert(sym.intern(r?.node));
    }
    for r in prep.rows::<prep_rows::poison_bound>()? {
        let r = r?;
        p.poison_bound.insert(sym.intern(r.obj), r.bytes);
    }
    for r in prep.rows::<prep_rows::looping_field>()? {
        p.looping.insert(sym.intern(r?.node));
    }
    for r in prep.rows::<prep_rows::data_node>()? {
        p.data_nodes.insert(sym.intern(r?.node));
    }
    for r in prep.rows::<prep_rows::flow_slot_load>()? {
        p.flow_slot_loads.insert(sym.intern(r?.load));
    }
    for r in prep.rows::<prep_rows::slot_value>()? {
        let r = r?;
        p.slot_values.push((sym.intern(r.to), sym.intern(r.value)));
    }
    for r in prep.rows::<prep_rows::code_object>()? {
        p.code.insert(sym.intern(r?.obj));
    }
    for r in prep.rows::<prep_rows::wrapper>()? {
        p.wrapper.insert(sym.intern(r?.func));
    }
    for r in prep.rows::<prep_rows::wrapper_return_offset>()? {
        let r = r?;
        let f = sym.intern(r.func);
        p.wrapper_offsets.entry(f).or_default().push(r.offset);
    }
    for r in prep.rows::<prep_rows::copy_length>()? {
        let r = r?;
        p.copy_length.insert(sym.intern(r.instr), r.bytes);
    }
    // Collapsed and typed objects have a size too: their layout says more.
    let mut loop_fields: HashMap<u32, Vec<i32>> = HashMap::default();
    for r in prep.rows::<prep_rows::loop_field>()? {
        let r = r?;
        loop_fields.entry(sym.intern(r.obj)).or_default().push(r.offset);
    }
    for r in prep.rows::<prep_rows::object_size>()? {
        let r = r?;
        let o = sym.intern(r.obj);
        let mut fields = loop_fields.remove(&o).unwrap_or_default();
        fields.sort_unstable();
        p.layouts.insert(o, Layout::Sized(r.bytes, fields.into()));
    }
    let mut fields: HashMap<u32, HashSet<i32>> = HashMap::default();
    for r in prep.rows::<prep_rows::object_field>()? {
        let r = r?;
        fields.entry(sym.intern(r.obj)).or_default().insert(r.offset);
    }
    p.layouts.extend(fields.into_iter().map(|(o, f)| {
        let mut f: Vec<i32> = f.into_iter().collect();
        f.sort_unstable();
        (o, Layout::Fields(f.into()))
    }));
    for r in prep.rows::<prep_rows::collapsed_object>()? {
        let r = r?;
        p.layouts.insert(sym.intern(r.obj), Layout::Collapsed(r.elem_bytes));
    }
    for r in prep.rows::<prep_rows::wrapper_inner>()? {
        let r = r?;
        p.wrapper_inner
            .entry(sym.intern(r.func))
            .or_default()
            .push(sym.intern(r.call));
    }
    let mut out_offsets: HashMap<(u32, i32), Vec<i32>> = HashMap::default();
    for r in prep.rows::<prep_rows::wrapper_out_offset>()? {
        let r = r?;
        let key = (sym.intern(r.func), r.index);
        out_offsets.entry(key).or_default().push(r.offset);
    }
    for r in prep.rows::<prep_rows::out_wrapper>()? {
        let r = r?;
        let f = sym.intern(r.func);
        let offsets = out_offsets.remove(&(f, r.index)).unwrap_or_default();
        p.out_wrapper.entry(f).or_default().push((r.index, offsets));
    }
    for r in prep.rows::<prep_rows::out_wrapper_store>()? {
        p.out_wrapper_stores.insert(sym.intern(r?.store));
    }
    for r in prep.rows::<prep_rows::out_chain_arg>()? {
        let r = r?;
        p.out_chain_args.insert((sym.intern(r.call), r.index));
    }
    for r in prep.rows::<prep_rows::overwritten_vptr>()? {
        let r = r?;
        let store = sym.intern(r.store);
        p.overwritten_vptr.insert((store, sym.intern(r.obj), r.offset));
        p.vptr_stores.insert(store);
    }
    for r in prep.rows::<prep_rows::external_function>()? {
        let r = r?;
        p.external.insert(sym.intern(r.func), sym.intern(r.name));
    }
    for r in prep.rows::<prep_rows::unmodelled_function>()? {
        p.unmodelled.insert(sym.intern(r?.func));
    }
    for r in prep.rows::<prep_rows::variadic_function>()? {
        let r = r?;
        p.variadic.insert(sym.intern(r.func), r.nfixed);
    }
    for r in prep.rows::<prep_rows::external_global>()? {
        p.external_globals.push(sym.intern(r?.global));
    }
    for r in prep.rows::<prep_rows::indirect_call_type>()? {
        let r = r?;
        p.indirect_type.insert(sym.intern(r.call), sym.intern(r.ty));
    }
    for r in prep.rows::<prep_rows::callable_type>()? {
        let r = r?;
        p.callable.insert((sym.intern(r.call_ty), sym.intern(r.fn_ty)));
    }
    for r in prep.rows::<prep_rows::megamorphic_call>()? {
        p.megamorphic.insert(sym.intern(r?.call));
    }
    p.max_offset = match prep.rows::<prep_rows::max_offset>()?.next() {
        Some(r) => r?.n,
        None => bail!("max_offset is empty"),
    };
    for r in prep.rows::<prep_rows::root_function>()? {
        p.roots.push(sym.intern(r?.func));
    }
    for r in prep.rows::<prep_rows::context_entry>()? {
        p.context_entries.push(sym.intern(r?.func));
    }
    for r in prep.rows::<models::model_alloc>()? {
        p.alloc.insert(sym.intern(r?.name));
    }
    for r in prep.rows::<models::model_alloc_linked>()? {
        p.alloc_linked.insert(sym.intern(r?.name));
    }
    for r in prep.rows::<prep_rows::static_storage>()? {
        let r = r?;
        p.static_storage.insert(sym.intern(r.name), sym.intern(r.obj));
        p.returned_storage.insert(sym.intern(r.obj));
    }
    // Models of one name and one argument index.
    let mut by_index = |map: &mut HashMap<u32, Vec<i32>>, name: &str, index: i32| {
        map.entry(sym.intern(name)).or_default().push(index);
    };
    for r in prep.rows::<models::model_out_alloc>()? {
        let r = r?;
        by_index(&mut p.out_alloc, r.name, r.index);
    }
    for r in prep.rows::<models::model_out_alloc_in>()? {
        let r = r?;
        by_index(&mut p.out_alloc_in, r.name, r.index);
    }
    for r in prep.rows::<models::model_return_arg>()? {
        let r = r?;
        by_index(&mut p.return_arg, r.name, r.index);
    }
    for r in prep.rows::<models::model_return_into_arg>()? {
        let r = r?;
        by_index(&mut p.return_into_arg, r.name, r.index);
    }
    for r in prep.rows::<models::model_return_into_arg_any_call>()? {
        let r = r?;
        by_index(&mut p.return_into_arg_any_call, r.name, r.index);
    }
    for r in prep.rows::<models::model_return_load_arg>()? {
        let r = r?;
        by_index(&mut p.return_load_arg, r.name, r.index);
    }
    for r in prep.rows::<models::model_throw>()? {
        let r = r?;
        by_index(&mut p.throw, r.name, r.index);
    }
    for r in prep.rows::<models::model_out_self>()? {
        let r = r?;
        by_index(&mut p.out_self, r.name, r.index);
    }
    for r in prep.rows::<models::model_links>()? {
        let r = r?;
        by_index(&mut p.links, r.name, r.offset);
    }
    for r in prep.rows::<models::model_copy_contents>()? {
        let r = r?;
        p.copy_contents
            .entry(sym.intern(r.name))
            .or_default()
            .push((r.dst, r.src));
    }
    for r in prep.rows::<models::model_scatter_contents>()? {
        let r = r?;
        p.scatter_contents
            .entry(sym.intern(r.name))
            .or_default()
            .push((r.dst, r.src));
    }
    for r in prep.rows::<models::model_out_into_arg>()? {
        let r = r?;
        p.out_into_arg
            .entry(sym.intern(r.name))
            .or_default()
            .push((r.out, r.src));
    }
    let mut storage_object: HashMap<&str, u32> = HashMap::default();
    for r in prep.rows::<prep_rows::storage_object>()? {
        let r = r?;
        storage_object.insert(r.storage, sym.intern(r.obj));
    }
    let storage = |s: &str| match storage_object.get(s) {
        Some(&o) => Ok(o),
        None => Err(anyhow!("storage_object lacks the storage `{s}`")),
    };
    for r in prep.rows::<prep_rows::kept_storage>()? {
        let r = r?;
        p.kept_storage
            .entry(sym.intern(r.name))
            .or_default()
            .push(sym.intern(r.obj));
    }
    // Models of one name, one argument index and one storage.
    let mut by_storage = |map: &mut HashMap<u32, Vec<(i32, u32)>>, name: &str, k: i32, s: &str| {
        map.entry(sym.intern(name)).or_default().push((k, storage(s)?));
        Ok::<(), anyhow::Error>(())
    };
    for r in prep.rows::<models::model_keep>()? {
        let r = r?;
        by_storage(&mut p.keep, r.name, r.index, r.storage)?;
    }
    for r in prep.rows::<models::model_keep_contents>()? {
        let r = r?;
        by_storage(&mut p.keep_contents, r.name, r.index, r.storage)?;
    }
    for r in prep.rows::<models::model_out_kept>()? {
        let r = r?;
        by_storage(&mut p.out_kept, r.name, r.index, r.storage)?;
    }
    for r in prep.rows::<models::model_return_kept>()? {
        let r = r?;
        let o = storage(r.storage)?;
        p.return_kept.entry(sym.intern(r.name)).or_default().push(o);
    }
    // Callbacks by (name, argument), each model of calls through the argument or through
    // its memory.
    for r in prep.rows::<prep_rows::defined_callback>()? {
        let r = r?;
        let (name, func) = (sym.intern(r.name), sym.intern(r.func));
        p.defined_callbacks.entry(name).or_default().push((r.key, func));
    }
    for r in prep.rows::<prep_rows::global_callback>()? {
        let r = r?;
        let (name, obj) = (sym.intern(r.name), sym.intern(r.obj));
        p.global_callbacks.entry(name).or_default().push((r.key, obj));
    }
    // One callback model per (name, argument or key, levels): calls through an argument,
    // through its memory, or of the functions a key stands for.
    let mut models: Vec<(u32, i32, i32)> = Vec::new();
    for r in prep.rows::<models::model_calls_back>()? {
        let r = r?;
        models.push((sym.intern(r.name), r.func, 0));
    }
    for r in prep.rows::<models::model_calls_back_contents>()? {
        let r = r?;
        models.push((sym.intern(r.name), r.func, r.levels));
    }
    let keyed = p.defined_callbacks.iter().chain(&p.global_callbacks);
    models.extend(keyed.flat_map(|(&name, v)| v.iter().map(move |&(key, _)| (name, key, 0))));
    models.sort_unstable();
    models.dedup();
    let mut callback_index: HashMap<(u32, i32), Vec<u32>> = HashMap::default();
    for (name, func, levels) in models {
        let i = p.callbacks.len() as u32;
        callback_index.entry((name, func)).or_default().push(i);
        p.callbacks_of.entry(name).or_default().push(i);
        p.callbacks.push(Callback {
            name,
            func,
            levels,
            params: Vec::new(),
            returns_kept: Vec::new(),
        });
    }
    let mut at = |p: &mut Prep, name: &str, func: i32, add: &dyn Fn(&mut Callback)| {
        for &i in callback_index.get(&(sym.intern(name), func)).into_iter().flatten() {
            add(&mut p.callbacks[i as usize]);
        }
    };
    for r in prep.rows::<models::model_callback_param>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::Arg(r.arg) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_into_arg>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::Into(r.arg) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_param_contents>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::Contents(r.arg) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_into_contents>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::IntoContents(r.arg) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_param_kept>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::Kept(storage(r.storage)?) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_param_storage>()? {
        let r = r?;
        let param = Param { param: r.param, source: ParamSource::Storage(storage(r.storage)?) };
        at(&mut p, r.name, r.func, &|c| c.params.push(param));
    }
    for r in prep.rows::<models::model_callback_return_kept>()? {
        let r = r?;
        let o = storage(r.storage)?;
        at(&mut p, r.name, r.func, &|c| c.returns_kept.push(o));
    }
    Ok(p)
}

/// Reading the constraints: insensitive, each is added at once (in the order of the
/// relations, calls last); with contexts, those of defined functions are grouped by
/// function and added per context as the function's instances are reached.
struct Loader {
    callees: Vec<(u32, Node)>,
}

impl Loader {
    /// Constraint `con`, whose node `node` tells the function that owns it.
    fn add(&mut self, s: &mut Solver, node: u32, con: Con) {
        if s.cx.depth > 0
            && let Some(&f) = s.cx.owner.get(&node)
        {
            s.cx.groups.entry(f).or_default().push(con);
            return;
        }
        if let Some(callee) = s.apply(con, 0, 0) {
            self.callees.push(callee);
        }
    }
}

fn load_facts(s: &mut Solver, facts: &FactSet) -> Result<()> {
    for r in facts.rows::<rows::function>()? {
        let f = s.sym.intern(r?.func);
        s.functions.insert(f);
    }
    for r in facts.rows::<rows::function_definition>()? {
        let f = s.sym.intern(r?.func);
        s.defined.insert(f);
    }
    if s.cx.depth > 0 {
        for r in facts.rows::<rows::pt_node>()? {
            let r = r?;
            let (n, f) = (s.sym.intern(r.node), s.sym.intern(r.func));
            if s.defined.contains(&f) {
                s.cx.owner.insert(n, f);
            }
        }
        for r in facts.rows::<rows::pt_object>()? {
            let r = r?;
            if r.kind == "stack" {
                let o = s.sym.intern(r.obj);
                s.cx.stack_objects.insert(o);
            }
        }
    }
    for r in facts.rows::<rows::function_signature>()? {
        let r = r?;
        let (f, t) = (s.sym.intern(r.func), s.sym.intern(r.ty));
        s.signature.insert(f, t);
    }
    for r in facts.rows::<rows::pt_node_aggregate>()? {
        let n = s.sym.intern(r?.node);
        s.aggregate.insert(n);
    }
    let mut ld = Loader {
        callees: Vec::new(),
    };
    for r in facts.rows::<rows::pt_address_of>()? {
        let r = r?;
        let (node, obj) = (s.sym.intern(r.node), s.sym.intern(r.obj));
        ld.add(s, node, Con::AddressOf { node, obj });
    }
    for r in facts.rows::<rows::pt_copy>()? {
        let r = r?;
        let (to, from) = (s.sym.intern(r.to), s.sym.intern(r.from));
        ld.add(s, to, Con::Copy { to, from });
    }
    for r in facts.rows::<rows::pt_field>()? {
        let r = r?;
        let (to, base) = (s.sym.intern(r.to), s.sym.intern(r.base));
        let offset = r.offset;
        ld.add(s, to, Con::Field { to, base, offset });
    }
    // A stride matters only where a collapsed array's element size divides it.
    let elems: HashSet<i32> = s.prep.layouts.values().filter_map(Layout::element).collect();
    let mut strides = HashMap::default();
    for r in facts.rows::<rows::pt_offset_stride>()? {
        let r = r?;
        if elems.iter().any(|&e| r.stride % e == 0) {
            strides.insert(s.sym.intern(r.instr), (r.offset, r.stride));
        }
    }
    for r in facts.rows::<rows::pt_offset_unknown>()? {
        let r = r?;
        let (to, base) = (s.sym.intern(r.to), s.sym.intern(r.base));
        let con = match strides.get(&s.sym.intern(r.instr)) {
            Some(&(offset, stride)) => Con::Stride {
                to,
                base,
                offset,
                stride,
            },
            None => Con::Unknown { to, base },
        };
        ld.add(s, to, con);
    }
    // A pointer made from an integer loaded from memory is a load of what it holds. A load
    // from a slot read flow-sensitively copies the stores it reads instead.
    let loads = facts.rows::<rows::pt_load>()?.map(|r| r.map(|r| (Some(r.instr), r.to, r.addr)));
    let int_loads = facts.rows::<rows::pt_int_load>()?.map(|r| r.map(|r| (None, r.to, r.addr)));
    for r in loads.chain(int_loads) {
        let (instr, to, addr) = r?;
        // A flow-sensitive load's symbol is in the table already (the prep named it).
        let flow = instr.and_then(|i| s.sym.get(i));
        if flow.is_some_and(|i| s.prep.flow_slot_loads.contains(&i)) {
            continue;
        }
        let (to, addr) = (s.sym.intern(to), s.sym.intern(addr));
        ld.add(s, to, Con::Load { to, addr });
    }
    for (to, from) in std::mem::take(&mut s.prep.slot_values) {
        ld.add(s, to, Con::Copy { to, from });
    }
    for r in facts.rows::<rows::pt_store>()? {
        let r = r?;
        let (addr, value) = (s.sym.intern(r.addr), s.sym.intern(r.value));
        let instr = s.sym.intern(r.instr);
        ld.add(s, addr, Con::Store { instr, addr, value });
    }
    for r in facts.rows::<rows::pt_initializer>()? {
        let r = r?;
        let (global, node) = (s.sym.intern(r.global), s.sym.intern(r.node));
        let offset = r.offset;
        ld.add(
            s,
            global,
            Con::Initializer {
                global,
                offset,
                node,
            },
        );
    }
    for r in facts.rows::<rows::pt_memcpy>()? {
        let r = r?;
        let (instr, dst, src) = (s.sym.intern(r.instr), s.sym.intern(r.dst), s.sym.intern(r.src));
        ld.add(s, dst, Con::Memcpy { instr, dst, src });
    }
    let mut unexposed = HashSet::default();
    for r in facts.rows::<rows::pt_address_unexposed>()? {
        unexposed.insert(r?.instr);
    }
    for r in facts.rows::<rows::pt_ptr_to_int>()? {
        let r = r?;
        if !unexposed.contains(r.instr) {
            let node = s.sym.intern(r.node);
            ld.add(s, node, Con::PtrToInt { node });
        }
    }
    for r in facts.rows::<rows::pt_int_to_ptr>()? {
        let node = s.sym.intern(r?.node);
        ld.add(s, node, Con::IntToPtr { node });
    }
    for r in facts.rows::<rows::pt_va_start>()? {
        let r = r?;
        let (list, func) = (s.sym.intern(r.list), s.sym.intern(r.func));
        ld.add(s, list, Con::VaStart { list, func });
    }
    for r in facts.rows::<rows::pt_va_arg>()? {
        let r = r?;
        let (to, list) = (s.sym.intern(r.to), s.sym.intern(r.list));
        ld.add(s, to, Con::VaArg { to, list });
    }
    for r in facts.rows::<rows::pt_exception>()? {
        let to = s.sym.intern(r?.to);
        ld.add(s, to, Con::Exception { to });
    }
    for r in facts.rows::<rows::pt_param>()? {
        let r = r?;
        let (f, p) = (s.sym.intern(r.func), s.sym.intern(r.node));
        if s.cx.depth == 0 {
            s.node(p, 0);
        }
        s.params.entry(f).or_default().push((r.index, p));
    }
    for r in facts.rows::<rows::pt_int_param>()? {
        let r = r?;
        let (f, p) = (s.sym.intern(r.func), s.sym.intern(r.node));
        if s.cx.depth == 0 {
            s.node(p, 0);
        }
        s.int_params.entry(f).or_default().push((r.index, p));
    }
    for r in facts.rows::<rows::pt_return>()? {
        let r = r?;
        let (f, v) = (s.sym.intern(r.func), s.sym.intern(r.node));
        if s.cx.depth == 0 {
            s.node(v, 0);
        }
        s.returns.entry(f).or_default().push(v);
    }
    for r in facts.rows::<rows::pt_int_return>()? {
        let r = r?;
        let (f, v) = (s.sym.intern(r.func), s.sym.intern(r.addr));
        if s.cx.depth == 0 {
            s.node(v, 0);
        }
        s.int_returns.entry(f).or_default().push(v);
    }
    // Calls: operands first, then the callee triggers (which may fire at once).
    for r in facts.rows::<rows::pt_call>()? {
        let r = r?;
        let (instr, callee) = (s.sym.intern(r.instr), s.sym.intern(r.callee));
        ld.add(s, callee, Con::Call { instr, callee });
    }
    for r in facts.rows::<rows::pt_call_arg>()? {
        let r = r?;
        let (instr, node) = (s.sym.intern(r.instr), s.sym.intern(r.node));
        let index = r.index;
        ld.add(s, node, Con::CallArg { instr, index, node });
    }
    for r in facts.rows::<rows::pt_call_result>()? {
        let r = r?;
        let (instr, node) = (s.sym.intern(r.instr), s.sym.intern(r.node));
        ld.add(s, node, Con::CallResult { instr, node });
    }
    for r in facts.rows::<rows::pt_int_call_arg>()? {
        let r = r?;
        let (instr, node) = (s.sym.intern(r.instr), s.sym.intern(r.addr));
        let index = r.index;
        ld.add(s, node, Con::IntCallArg { instr, index, node });
    }
    for r in facts.rows::<rows::pt_int_call_result>()? {
        let r = r?;
        let (instr, node) = (s.sym.intern(r.instr), s.sym.intern(r.node));
        ld.add(s, node, Con::IntCallResult { instr, node });
    }
    for g in s.prep.external_globals.clone() {
        let g = s.cx.inst(0, g);
        let c = s.cell(g, -1);
        s.add_loc(c, (g, -1));
    }
    for (i, n) in ld.callees {
        s.add_trigger(n, Trigger::Callee { call: i });
    }
    // With contexts: the entries (`context_entry`) in the empty context; the others as
    // call edges reach them.
    if s.cx.depth > 0 {
        for f in s.prep.context_entries.clone() {
            s.cx.reach(f, 0);
        }
    }
    Ok(())
}

/// What the outputs build once per distinct set: found by representative and, for a
/// bitset, by the address that the equal sets share ([`SetPool`]).
#[derive(Default)]
struct PerSet<T> {
    by_rep: HashMap<Node, T>,
    by_address: HashMap<usize, T>,
}

impl<T: Copy> PerSet<T> {
    fn get(&mut self, r: Node, pts: &LocSet) -> Option<T> {
        if let Some(&v) = self.by_rep.get(&r) {
            return Some(v);
        }
        let v = *self.by_address.get(&pts.address()?)?;
        self.by_rep.insert(r, v);
        Some(v)
    }

    fn insert(&mut self, r: Node, pts: &LocSet, v: T) {
        self.by_rep.insert(r, v);
        if let Some(a) = pts.address() {
            self.by_address.insert(a, v);
        }
    }
}

fn outputs(mut s: Solver, facts: &FactSet) -> Result<Builder> {
    // Reachable functions: the roots, then along call edges from their instructions.
    let mut function_of: HashMap<u32, u32> = HashMap::default();
    for r in facts.rows::<rows::instr_function>()? {
        let r = r?;
        function_of.insert(s.sym.intern(r.instr), s.sym.intern(r.func));
    }
    let callbacks = s.callbacks.iter().map(|&(c, _, f)| (c, f));
    let edges: Vec<(u32, u32)> = (s.call_edges.iter().copied().chain(callbacks))
        .map(|(c, f)| (s.call_sym[c as usize], f))
        .collect();
    let mut callees: HashMap<u32, Vec<u32>> = HashMap::default();
    for &(c, f) in &edges {
        if let Some(&caller) = function_of.get(&c) {
            callees.entry(caller).or_default().push(f);
        }
    }
    let mut reachable: HashSet<u32> = s.prep.roots.iter().copied().collect();
    let mut stack: Vec<u32> = reachable.iter().copied().collect();
    while let Some(f) = stack.pop() {
        for &g in callees.get(&f).into_iter().flatten() {
            if reachable.insert(g) {
                stack.push(g);
            }
        }
    }
    let kind = |s: &mut Solver, k: &str| s.sym.intern(k);
    let mut objects: Vec<(u32, u32)> = Vec::new();
    for r in facts.rows::<rows::pt_object>()? {
        let r = r?;
        objects.push((s.sym.intern(r.obj), s.sym.intern(r.kind)));
    }
    let heap = kind(&mut s, "heap");
    for &(c, f) in &s.call_edges {
        let call = s.call_sym[c as usize];
        let has_result = s.call_result[c as usize].is_some();
        let is_heap = match s.prep.external.get(&f) {
            Some(n) => {
                (s.prep.alloc.contains(n) && has_result)
                    || s.prep.out_alloc.contains_key(n)
                    || s.prep.out_alloc_in.contains_key(n)
            }
            None => false,
        } || (s.prep.wrapper.contains(&f) && has_result)
            || s.prep.out_wrapper.contains_key(&f);
        if is_heap {
            objects.push((call, heap));
        }
    }
    let external = kind(&mut s, "external");
    let storages = s.external_objects.iter().chain(&s.storage_objects);
    objects.extend(storages.map(|&f| (s.cx.obj(f), external)));
    let varargs = kind(&mut s, "varargs");
    objects.extend(s.prep.variadic.keys().map(|&f| (f, varargs)));
    if s.cx.depth > 0 {
        return contextual_outputs(s, edges, reachable, objects);
    }

    // The solver's symbols are the builder's: nothing is interned again.
    let mut out = Builder::with_symbols(std::mem::take(&mut s.sym));
    // One set per distinct representative's set, shared by every node and cell it stands
    // for (most nodes of a whole program point to one of a few large sets).
    let mut loc_ids = vec![u32::MAX; s.locs.len()];
    let mut set_of = PerSet::<u32>::default();
    let mut by_content: HashMap<u64, Vec<(Node, u32)>> = HashMap::default();
    let mut set = |out: &mut Builder, n: Node| -> u32 {
        let r = s.rep_of(n);
        let pts = &s.pts[r as usize];
        if let Some(id) = set_of.get(r, pts) {
            return id;
        }
        let mut h = crate::fasthash::FastHasher::default();
        pts.iter().for_each(|l| h.write_u32(l));
        let same = by_content.entry(h.finish()).or_default();
        if let Some(&(_, id)) = same
            .iter()
            .find(|(o, _)| s.pts[*o as usize].iter().eq(pts.iter()))
        {
            set_of.insert(r, pts, id);
            return id;
        }
        let mut locs: Vec<u32> = pts
            .iter()
            .map(|l| {
                if loc_ids[l as usize] == u32::MAX {
                    let (o, f) = s.locs[l as usize];
                    loc_ids[l as usize] = out.loc(o, f);
                }
                loc_ids[l as usize]
            })
            .collect();
        locs.sort_unstable();
        let id = out.set(RoaringBitmap::from_sorted_iter(locs).expect("sorted"));
        same.push((r, id));
        set_of.insert(r, pts, id);
        id
    };
    for n in 0..s.pts.len() {
        let Some(v) = s.node_name[n] else { continue };
        let set = set(&mut out, n as Node);
        out.points_to(v, set);
    }
    for (&(o, off), &c) in &s.cells {
        if s.copy_objects.contains(&o) {
            continue;
        }
        let set = set(&mut out, c);
        out.holds(o, off, set);
    }
    out.call_edges = edges;
    out.reachable = reachable.into_iter().collect();
    out.objects = objects;
    Ok(out)
}

/// The outputs with contexts: the relations of the insensitive analysis as projections
/// (each node's and cell's set over its contexts, without heap contexts), and the
/// contextual relations beside them.
fn contextual_outputs(
    mut s: Solver,
    edges: Vec<(u32, u32)>,
    reachable: HashSet<u32>,
    objects: Vec<(u32, u32)>,
) -> Result<Builder> {
    let ctx_syms: Vec<u32> = (0..s.cx.elems.len() as u32)
        .map(|c| {
            let text = s.cx.spell(c, &s.sym);
            s.sym.intern(&text)
        })
        .collect();
    let mut out = Builder::with_symbols(std::mem::take(&mut s.sym));
    out.context = s.cx.mode;
    // Each location's projected and contextual ids in the builder, made on first use.
    let mut proj_ids = vec![u32::MAX; s.locs.len()];
    let mut cs_ids = vec![u32::MAX; s.locs.len()];
    // Each distinct set's projection (an index into `projs`, to be united over contexts)
    // and contextual set (a set of the builder): most representatives share one of a few
    // large sets.
    let mut projs: Vec<RoaringBitmap> = Vec::new();
    let mut per_set = PerSet::<(u32, u32)>::default();
    let mut sets_of = |out: &mut Builder, r: Node| -> (u32, u32) {
        let pts = &s.pts[r as usize];
        if let Some(ids) = per_set.get(r, pts) {
            return ids;
        }
        let (mut proj, mut cs) = (Vec::new(), Vec::new());
        for l in pts.iter() {
            let (o, f) = s.locs[l as usize];
            let (hctx, obj) = s.cx.insts[o as usize];
            if proj_ids[l as usize] == u32::MAX {
                proj_ids[l as usize] = out.loc(obj, f);
                cs_ids[l as usize] = out.cs_loc(ctx_syms[hctx as usize], obj, f);
            }
            proj.push(proj_ids[l as usize]);
            cs.push(cs_ids[l as usize]);
        }
        // Instances of one object project to one location.
        proj.sort_unstable();
        proj.dedup();
        cs.sort_unstable();
        projs.push(RoaringBitmap::from_sorted_iter(proj).expect("sorted"));
        let cs = out.cs_shared_set(RoaringBitmap::from_sorted_iter(cs).expect("sorted"));
        let ids = (projs.len() as u32 - 1, cs);
        per_set.insert(r, pts, ids);
        ids
    };
    let mut per_var: HashMap<u32, Vec<u32>> = HashMap::default();
    for n in 0..s.pts.len() {
        let Some(v) = s.node_name[n] else { continue };
        let (proj, cs) = sets_of(&mut out, s.rep_of(n as Node));
        out.cs_points_to(ctx_syms[s.node_ctx[n] as usize], v, cs);
        per_var.entry(v).or_default().push(proj);
    }
    let mut per_cell: HashMap<(u32, i32), Vec<u32>> = HashMap::default();
    for (&(o, off), &c) in &s.cells {
        let (hctx, obj) = s.cx.insts[o as usize];
        if s.copy_objects.contains(&obj) {
            continue;
        }
        let (proj, cs) = sets_of(&mut out, s.rep_of(c));
        out.cs_holds(ctx_syms[hctx as usize], obj, off, cs);
        per_cell.entry((obj, off)).or_default().push(proj);
    }
    let united = |ids: &mut Vec<u32>| -> RoaringBitmap {
        ids.sort_unstable();
        ids.dedup();
        let mut all = RoaringBitmap::new();
        for &i in ids.iter() {
            all |= &projs[i as usize];
        }
        all
    };
    for (v, mut ids) in per_var {
        let set = out.shared_set(united(&mut ids));
        out.points_to(v, set);
    }
    for ((o, off), mut ids) in per_cell {
        let set = out.shared_set(united(&mut ids));
        out.holds(o, off, set);
    }
    out.cs_call_edges = (s.cx.edges.iter())
        .map(|&(c, y, f)| {
            let x = s.call_ctx[c as usize];
            let call = s.call_sym[c as usize];
            (ctx_syms[x as usize], call, ctx_syms[y as usize], f)
        })
        .collect();
    out.reachable_contexts = (s.cx.instances.iter())
        .map(|&(f, c)| (f, ctx_syms[c as usize]))
        .collect();
    out.call_edges = edges;
    out.reachable = reachable.into_iter().collect();
    out.objects = objects;
    Ok(out)
}
