//! Jinja2 templates, rendered with MiniJinja.

use minijinja::{Environment, UndefinedBehavior, Value};

use super::GenieError;

/// The templates of a Genie machine, compiled once: each state's template by the path the spec names.
///
/// Undefined variables are errors rather than empty text, so a misspelt name in a template is a clear error
/// at the turn that renders it (and the session is left as it was).
#[derive(Clone, Debug)]
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// Compiles every `(name, source)`; the first that does not parse is the error.
    pub fn new<'a>(
        sources: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, GenieError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let mut templates = Self { env };
        for (name, source) in sources {
            templates.set(name, source)?;
        }
        Ok(templates)
    }

    /// Replaces (or adds) the template `name`: a test's stand-in, or a template reloaded at run time.
    pub fn set(&mut self, name: &str, source: &str) -> Result<(), GenieError> {
        self.env
            .add_template_owned(name.to_owned(), source.to_owned())
            .map_err(|e| error(name, &e))
    }

    /// Renders `name` with `context`.
    pub fn render(&self, name: &str, context: &Value) -> Result<String, GenieError> {
        self.env
            .get_template(name)
            .and_then(|t| t.render(context))
            .map_err(|e| error(name, &e))
    }
}

fn error(name: &str, e: &minijinja::Error) -> GenieError {
    // MiniJinja's message names the line; its detail says what was undefined or did not parse.
    let mut message = e.kind().to_string();
    if let Some(detail) = e.detail() {
        message.push_str(": ");
        message.push_str(detail);
    }
    if let Some(line) = e.line() {
        message.push_str(&format!(" (line {line})"));
    }
    GenieError::Template {
        template: name.to_owned(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_reports_errors_with_the_template_name() {
        let t = Templates::new([("hi.jinja2", "Hello {{ name }}!")]).unwrap();
        let ctx = minijinja::context! { name => "Ada" };
        assert_eq!(t.render("hi.jinja2", &ctx).unwrap(), "Hello Ada!");
        let err = t.render("hi.jinja2", &minijinja::context! {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            "template `hi.jinja2` failed: undefined value: `name` is undefined (line 1)"
        );
        let err = Templates::new([("bad.jinja2", "{% if %}")]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("template `bad.jinja2` failed: syntax error"),
            "{err}"
        );
    }
}
