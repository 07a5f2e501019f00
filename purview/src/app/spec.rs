//! A view-model type's actions compiled once: each action's schemas,
//! signature, argument check and result shape, as every window of the type
//! shares them.

use std::{any::TypeId, collections::HashMap, sync::Arc};

use serde_json::{Value, json};

use crate::{
    ActionSpec,
    action::JsonObject,
    naming,
    schema::{describes_object, output_schema, self_contained},
    validate::ArgumentCheck,
};

/// Whether a type's actions belong to windows or to the app itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Level {
    /// Window actions that write take `expectedVersion`.
    Window,
    /// App-level actions have no version, and may not take the names of
    /// Purview's own tools.
    App,
}

/// How an action's `result` travels, decided once from its declared schema
/// so that values always match the outputSchema: §5.4 makes `result` an
/// object, so anything else is carried as `{"value": ..}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultShape {
    /// The declared schema describes objects: sent as is.
    Object,
    /// The declared schema describes something else: always wrapped.
    Wrapped,
    /// No schema declared: wrapped when the value is not an object.
    Undeclared,
}

impl ResultShape {
    fn of(schema: Option<&JsonObject>) -> Self {
        match schema {
            None => Self::Undeclared,
            Some(s) if describes_object(s) => Self::Object,
            Some(_) => Self::Wrapped,
        }
    }

    pub(crate) fn wrap(self, value: Value) -> Value {
        match (self, value) {
            (Self::Object, value) | (Self::Undeclared, value @ Value::Object(_)) => value,
            (_, value) => json!({ "value": value }),
        }
    }
}

/// A compiled action: the spec plus the exact schemas tools/list advertises.
#[derive(Debug)]
pub(crate) struct CompiledAction {
    pub spec: ActionSpec,
    pub tool_title: String,
    /// The inputSchema as advertised: self-contained, with `expectedVersion`
    /// for window actions that write (not `read_only`).
    pub input_schema: Arc<JsonObject>,
    pub output_schema: Arc<JsonObject>,
    /// The one-line form `app__read_windows` lists (crate::signature).
    pub signature: Arc<str>,
    /// The argument names the action takes (not `expectedVersion`).
    pub params: Arc<[String]>,
    /// The input schema, compiled once.
    pub check: Arc<ArgumentCheck>,
    pub result_shape: ResultShape,
}

impl CompiledAction {
    /// `pages`: the tables this action is the declared load action of.
    pub(crate) fn compile(spec: ActionSpec, level: Level, pages: &[&str]) -> Result<Self, String> {
        match level {
            Level::Window => naming::check_action_name(&spec.name)?,
            Level::App => naming::check_app_action_name(&spec.name)?,
        }
        let mut input = self_contained(&spec.input_schema);
        if input.get("type").is_some_and(|t| t != "object") {
            return Err(format!(
                "action `{}`: the input schema must describe an object (its properties are the arguments)",
                spec.name
            ));
        }
        input.insert("type".into(), "object".into());
        // The name of the Rust type that holds the arguments: nothing a
        // model can use, in every tools/list and every read.
        input.remove("title");
        let properties =
            input.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
        let Value::Object(properties) = properties else {
            return Err(format!("action `{}`: `properties` must be an object", spec.name));
        };
        if properties.contains_key(naming::EXPECTED_VERSION) {
            return Err(format!(
                "action `{}`: `expectedVersion` is reserved for optimistic concurrency (§5.5)",
                spec.name
            ));
        }
        let params: Arc<[String]> = properties.keys().cloned().collect();
        // §5.5: a write takes `expectedVersion`; an action that changes
        // nothing has no one's edit to protect, so it does not advertise it
        // (and still accepts it: the gates check any version given).
        if level == Level::Window && spec.hints.read_only != Some(true) {
            properties.insert(
                naming::EXPECTED_VERSION.into(),
                json!({"type": "integer", "description": "The version you last read"}),
            );
        }
        let check =
            ArgumentCheck::compile(&input).map_err(|e| format!("action `{}`: {e}", spec.name))?;
        // The app's words for a pattern are the check's, not the clients'.
        crate::validate::words::strip_messages(&mut input);
        let output = output_schema(spec.result_schema.as_ref(), spec.needs_approval());
        let result_shape = ResultShape::of(spec.result_schema.as_ref());
        let tool_title = spec
            .title
            .as_deref()
            .map(str::to_owned)
            .unwrap_or_else(|| naming::humanize(&spec.name));
        let signature = crate::signature::signature(
            &spec.name,
            &input,
            &spec.hints,
            spec.needs_approval(),
            pages,
            &spec.sources,
        );
        Ok(Self {
            signature: signature.into(),
            spec,
            tool_title,
            input_schema: Arc::new(input),
            output_schema: Arc::new(output),
            params,
            check: Arc::new(check),
            result_shape,
        })
    }
}

/// The compiled actions of one Rust type, built once and shared.
#[derive(Debug)]
pub(crate) struct TypeSpec {
    pub actions: Vec<CompiledAction>,
    index: HashMap<String, usize>,
}

impl TypeSpec {
    /// `paged_by`: each paged table with its load action
    /// ([`crate::Window::PAGED_BY`]), checked here.
    pub fn compile(
        type_name: &'static str,
        specs: Vec<ActionSpec>,
        level: Level,
        paged_by: &[(&str, &str)],
    ) -> Result<Self, String> {
        let mut actions = Vec::with_capacity(specs.len());
        let mut index = HashMap::new();
        let mut errors = Vec::new();
        for spec in specs {
            let name = spec.name.to_string();
            let pages: Vec<&str> =
                paged_by.iter().filter(|(_, a)| *a == name).map(|(block, _)| *block).collect();
            match CompiledAction::compile(spec, level, &pages) {
                Ok(action) => {
                    if index.insert(name.clone(), actions.len()).is_some() {
                        errors.push(format!("action `{name}` is defined twice"));
                    }
                    actions.push(action);
                }
                Err(e) => errors.push(e),
            }
        }
        let spec = Self { actions, index };
        errors.extend(
            paged_by.iter().filter_map(|(block, action)| spec.check_loader(block, action).err()),
        );
        if errors.is_empty() {
            Ok(spec)
        } else {
            Err(format!("`{type_name}` has an invalid action list: {}", errors.join("; ")))
        }
    }

    /// Whether `action` can be `block`'s load action: it exists and takes
    /// exactly `offset` and `limit`.
    fn check_loader(&self, block: &str, action: &str) -> Result<(), String> {
        let Some((_, compiled)) = self.action(action) else {
            return Err(format!(
                "the table `{block}` pages through `{action}`, which is not one of its actions"
            ));
        };
        let mut params: Vec<&str> = compiled.params.iter().map(String::as_str).collect();
        params.sort_unstable();
        if params != ["limit", "offset"] {
            return Err(format!(
                "`{action}`, the load action of the table `{block}`, must take exactly `offset` and `limit`, not {params:?}"
            ));
        }
        let properties = compiled.input_schema.get("properties");
        for name in ["offset", "limit"] {
            if properties.and_then(|p| p.get(name)).and_then(|p| p.get("type"))
                != Some(&Value::from("integer"))
            {
                return Err(format!(
                    "`{action}`, the load action of the table `{block}`, must take `{name}` as an integer"
                ));
            }
        }
        Ok(())
    }

    pub fn action(&self, name: &str) -> Option<(usize, &CompiledAction)> {
        self.index.get(name).map(|&i| (i, &self.actions[i]))
    }

    /// The longest action name, for the tool-name budget.
    pub fn longest_name(&self) -> usize {
        self.actions.iter().map(|a| a.spec.name.len()).max().unwrap_or(0)
    }
}

/// A view-model type as the registry compiles it: which type, at which
/// level, where its actions come from and which load its paged tables.
#[derive(Clone, Copy)]
pub(crate) struct TypeKey {
    pub id: TypeId,
    pub name: &'static str,
    pub level: Level,
    pub actions: fn() -> Vec<ActionSpec>,
    /// The load action of each paged table ([`crate::Window::PAGED_BY`];
    /// empty for the app's own actions).
    pub paged_by: &'static [(&'static str, &'static str)],
}

impl TypeKey {
    pub fn of<T: 'static>(
        level: Level,
        actions: fn() -> Vec<ActionSpec>,
        paged_by: &'static [(&'static str, &'static str)],
    ) -> Self {
        Self { id: TypeId::of::<T>(), name: std::any::type_name::<T>(), level, actions, paged_by }
    }
}
