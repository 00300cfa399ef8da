import { silenceSqliteExperimentalWarning } from '../../source/infra/quiet-sqlite-warning.js';

silenceSqliteExperimentalWarning();
