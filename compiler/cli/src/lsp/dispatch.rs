//! Requests answered by the features: each method's parameters read, the document and position they name
//! found in the current compilation, and the feature's answer (or `null` where there is nothing to say).

use super::{Failure, Server, actions, complete, fingerprint, nav, outline, parse, to_value};
use lsp_types as lt;
use serde_json::Value;

impl Server {
    pub(super) fn dispatch(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        let enc = self.encoding;
        Ok(match method {
            "textDocument/hover" => {
                let p: lt::HoverParams = parse(params)?;
                let at = &p.text_document_position_params;
                self.at(&at.text_document.uri, at.position)
                    .and_then(|(a, file, offset)| nav::hover(a, file, offset, enc))
                    .map_or(Value::Null, to_value)
            }
            "textDocument/definition" => {
                let p: lt::GotoDefinitionParams = parse(params)?;
                let at = &p.text_document_position_params;
                self.at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(nav::definition(a, file, offset, enc))
                    })
            }
            "textDocument/references" => {
                let p: lt::ReferenceParams = parse(params)?;
                let at = &p.text_document_position;
                let declaration = p.context.include_declaration;
                self.workspace_at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(nav::references(a, file, offset, declaration, enc))
                    })
            }
            "textDocument/prepareRename" => {
                let p: lt::TextDocumentPositionParams = parse(params)?;
                // Refused with the reason rename would give, for any new name.
                match self.workspace_at(&p.text_document.uri, p.position) {
                    Some((a, file, offset)) => nav::prepare_rename(a, file, offset, enc)
                        .map_err(Failure::Refused)?
                        .map_or(Value::Null, to_value),
                    None => Value::Null,
                }
            }
            "textDocument/rename" => {
                let p: lt::RenameParams = parse(params)?;
                let at = &p.text_document_position;
                let versions = self.versions();
                match self.workspace_at(&at.text_document.uri, at.position) {
                    Some((a, file, offset)) => {
                        // A refused rename is an error the editor shows.
                        to_value(
                            nav::rename(a, file, offset, &p.new_name, &versions, enc)
                                .map_err(Failure::Refused)?,
                        )
                    }
                    None => Value::Null,
                }
            }
            "textDocument/completion" => {
                let p: lt::CompletionParams = parse(params)?;
                let at = &p.text_document_position;
                self.at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(complete::complete(a, file, offset))
                    })
            }
            "textDocument/documentSymbol" => {
                let p: lt::DocumentSymbolParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(outline::document_symbols(a, file, enc))
                    })
            }
            "textDocument/semanticTokens/full" => {
                let p: lt::SemanticTokensParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(outline::semantic_tokens(a, file, enc))
                    })
            }
            "textDocument/codeLens" => {
                let p: lt::CodeLensParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(fingerprint::code_lenses(a, file, enc))
                    })
            }
            "textDocument/formatting" => {
                let p: lt::DocumentFormattingParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(actions::format(a, file, enc))
                    })
            }
            "textDocument/codeAction" => {
                let p: lt::CodeActionParams = parse(params)?;
                let uri = p.text_document.uri.as_str().to_string();
                let versions = self.versions();
                match self.file(&p.text_document.uri) {
                    Some((a, file)) => {
                        let range = a.offsets(file, p.range, enc);
                        to_value(actions::code_actions(a, file, range, &uri, &versions, enc))
                    }
                    None => Value::Null,
                }
            }
            // How the tests reach the recovery from a bug in a handler.
            #[cfg(test)]
            "fsmc/test/panic" => panic!("a handler failed"),
            _ => return Err(Failure::NoMethod),
        })
    }
}
